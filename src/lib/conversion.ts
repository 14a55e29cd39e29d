/**
 * The conversion of a form's page over some days (docs/api.md, "Views and conversion"): each day's kept
 * submissions, counted up to that day's views, over the views, as a percentage with one decimal; null when
 * there was no view, which a person reads as "—". A view is one visitor's day, and a visitor sends the form at
 * most once for it: posts beyond a day's views came from elsewhere (a site's own form, a script), so the
 * figure never reads over 100%.
 */
export function conversion(days: readonly { submissions: number; views: number }[]): number | null {
  const views = days.reduce((sum, day) => sum + day.views, 0);
  if (views === 0) return null;
  const converted = days.reduce((sum, day) => sum + Math.min(day.submissions, day.views), 0);
  return Math.round((converted / views) * 1000) / 10;
}
