/**
 * The conversion of a form's page over some days: kept submissions per view, as a percentage with one decimal
 * (docs/api.md, "Views"); null when there was no view, which a person reads as "—".
 */
export function conversion(days: readonly { submissions: number; views: number }[]): number | null {
  const views = days.reduce((sum, day) => sum + day.views, 0);
  if (views === 0) return null;
  return Math.round((days.reduce((sum, day) => sum + day.submissions, 0) / views) * 1000) / 10;
}
