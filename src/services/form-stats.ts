import { and, asc, between, eq } from "drizzle-orm";
import { submissionDays } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { Services } from "./index.ts";
import type { Principal } from "../domain/types.ts";
import { DAY_MS } from "../domain/types.ts";

/** One UTC day of a form: submissions kept (not spam) and spam received that day, as they stand now, and views of its page. */
export interface DayCount {
  date: string;
  submissions: number;
  spam: number;
  /** Visitors who opened the form's page or embed that day, each counted once. */
  views: number;
}

/** A form's days from `since` to `until`, both included, every day present (0 when nothing came). */
export interface DailyStats {
  formId: string;
  since: string;
  until: string;
  days: DayCount[];
}

/** The longest range one request may ask for: a year and a day, so that a leap year fits. */
export const MAX_DAYS = 366;
/** The range when none is given: the 30 days up to today. */
const DEFAULT_DAYS = 30;

const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/**
 * The form's per-day counts from the day counters (never a count over the submissions): for a chart. `since`
 * and `until` are milliseconds of any time in their day (UTC); by default the 30 days up to `now`.
 */
export async function dailyStats(
  services: Pick<Services, "forms" | "store" | "pageViews">,
  principal: Principal,
  formRef: string,
  range: { since: number | null; until: number | null },
  now = Date.now(),
): Promise<DailyStats> {
  const form = await services.forms.findRow(principal, formRef);
  const last = dayOf(range.until ?? now);
  const first = range.since === null ? last - (DEFAULT_DAYS - 1) : dayOf(range.since);
  if (first > last) throw new ApiError("invalid_parameter", "since must not be after until.", { field: "since" });
  if (last - first + 1 > MAX_DAYS) {
    throw new ApiError("invalid_parameter", `A range may span at most ${MAX_DAYS} days; ask for a shorter one.`, { field: "since" });
  }
  const rows = await services.store.db
    .select({ day: submissionDays.day, submissions: submissionDays.submissionCount, spam: submissionDays.spamCount })
    .from(submissionDays)
    .where(and(eq(submissionDays.formId, form.id), between(submissionDays.day, first, last)))
    .orderBy(asc(submissionDays.day));
  const byDay = new Map(rows.map((row) => [row.day, row]));
  const views = await services.pageViews.daily(form.id, first, last);
  const days = Array.from({ length: last - first + 1 }, (_, i) => {
    const row = byDay.get(first + i);
    return { date: dateOf(first + i), submissions: row?.submissions ?? 0, spam: row?.spam ?? 0, views: views.get(first + i) ?? 0 };
  });
  return { formId: form.id, since: dateOf(first), until: dateOf(last), days };
}
