// The one owner of the counters that lists read instead of counting rows: each form's (submissions, spam,
// unread, starred) and the same per UTC day and per minute, moved together. Every path that adds, changes or deletes a submission (receive,
// mark, delete, bulk actions, retention, erasure) goes through here.
import { eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { preparedOn } from "../../db/prepared.ts";
import { forms, submissionDays, submissionMinutes, type SubmissionRow } from "../../db/schema.ts";
import { whenStored, type StatementMaker, type Step } from "../../db/statement.ts";
import { DAY_MS, MINUTE_MS } from "../../domain/types.ts";

type Counter = "submissionCount" | "spamCount" | "unreadCount" | "starredCount";
/** What one submission (or several) adds to each counter. */
export type CounterShare = Record<Counter, number>;
type Flags = Pick<SubmissionRow, "isRead" | "isStarred" | "isSpam" | "unconfirmed" | "unpaid">;
/** What the counters need to know of a submission. */
export type Counted = Flags & Pick<SubmissionRow, "formId" | "createdAt">;

/** The UTC day of a time: days since the epoch. */
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);
/** The minute of a time: minutes since the epoch. */
export const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS);

/**
 * Whether a submission is kept: neither spam, nor waiting for its double opt-in link, nor unpaid (awaiting its
 * payment, or expired without it). A kept submission counts and is told (notification, webhooks); the others
 * count nowhere but spam and tell nobody (see keep.ts).
 */
export const isKept = (flags: Pick<SubmissionRow, "isSpam" | "unconfirmed" | "unpaid">): boolean => !flags.isSpam && !flags.unconfirmed && !flags.unpaid;

/** How much one submission with these flags adds to each of the form's counters. */
export function counterShare(flags: Flags): CounterShare {
  const kept = isKept(flags) ? 1 : 0;
  return {
    submissionCount: kept,
    spamCount: flags.isSpam ? 1 : 0,
    unreadCount: kept && !flags.isRead ? 1 : 0,
    starredCount: kept && flags.isStarred ? 1 : 0,
  };
}

const SHARE_VALUES = {
  formId: sql.placeholder("formId"),
  submissionCount: sql.placeholder("submissionCount"),
  spamCount: sql.placeholder("spamCount"),
  unreadCount: sql.placeholder("unreadCount"),
  starredCount: sql.placeholder("starredCount"),
};
/** What an upsert into a table of counters (a day's or a minute's) adds to the bucket already there. */
const addedTo = (table: typeof submissionDays | typeof submissionMinutes) => ({
  submissionCount: sql`${table.submissionCount} + excluded.submission_count`,
  spamCount: sql`${table.spamCount} + excluded.spam_count`,
  unreadCount: sql`${table.unreadCount} + excluded.unread_count`,
  starredCount: sql`${table.starredCount} + excluded.starred_count`,
});

const addToDay = preparedOn((db) =>
  db
    .insert(submissionDays)
    .values({ ...SHARE_VALUES, day: sql.placeholder("day") })
    .onConflictDoUpdate({ target: [submissionDays.formId, submissionDays.day], set: addedTo(submissionDays) })
    .prepare(),
);

const addToMinute = preparedOn((db) =>
  db
    .insert(submissionMinutes)
    .values({ ...SHARE_VALUES, minute: sql.placeholder("minute") })
    .onConflictDoUpdate({ target: [submissionMinutes.formId, submissionMinutes.minute], set: addedTo(submissionMinutes) })
    .prepare(),
);

const addToForm = preparedOn((db) =>
  db
    .update(forms)
    .set({
      submissionCount: sql`${forms.submissionCount} + ${sql.placeholder("submissionCount")}`,
      spamCount: sql`${forms.spamCount} + ${sql.placeholder("spamCount")}`,
      unreadCount: sql`${forms.unreadCount} + ${sql.placeholder("unreadCount")}`,
      starredCount: sql`${forms.starredCount} + ${sql.placeholder("starredCount")}`,
    })
    .where(eq(forms.id, sql.placeholder("formId")))
    .prepare(),
);

const times = (sign: number, share: CounterShare): CounterShare => ({
  submissionCount: sign * share.submissionCount,
  spamCount: sign * share.spamCount,
  unreadCount: sign * share.unreadCount,
  starredCount: sign * share.starredCount,
});

/** Adds `sign` times a submission's share to the form's counters and to those of its day and minute, in the caller's transaction. */
export async function addShare(tx: Db, submission: Counted, sign: 1 | -1): Promise<void> {
  const share = times(sign, counterShare(submission));
  await addToDay(tx).run({ formId: submission.formId, day: dayOf(submission.createdAt), ...share });
  await addToMinute(tx).run({ formId: submission.formId, minute: minuteOf(submission.createdAt), ...share });
  await addToForm(tx).run({ formId: submission.formId, ...share });
}

/** A submission's flags changed (`before` → `after`): its counters follow, in the caller's transaction. */
export async function moveShare(tx: Db, before: Counted, after: Counted): Promise<void> {
  await addShare(tx, before, -1);
  await addShare(tx, after, 1);
}

/**
 * Takes deleted submissions off their forms' counters and their days' and minutes', in the caller's
 * transaction: one update per form, per day and per minute, however many went. Returns how many went from each form.
 */
export async function removeShares(tx: Db, gone: Counted[]): Promise<Record<string, number>> {
  const byForm = new Map<string, CounterShare & { n: number }>();
  const byDay = new Map<string, CounterShare & { formId: string; day: number }>();
  const byMinute = new Map<string, CounterShare & { formId: string; minute: number }>();
  const add = (into: CounterShare, share: CounterShare) => {
    for (const key of Object.keys(share) as Counter[]) into[key] += share[key];
  };
  const zero = (): CounterShare => ({ submissionCount: 0, spamCount: 0, unreadCount: 0, starredCount: 0 });
  for (const row of gone) {
    const share = counterShare(row);
    const form = byForm.get(row.formId) ?? { ...zero(), n: 0 };
    add(form, share);
    form.n += 1;
    byForm.set(row.formId, form);
    const key = `${row.formId} ${dayOf(row.createdAt)}`;
    const day = byDay.get(key) ?? { ...zero(), formId: row.formId, day: dayOf(row.createdAt) };
    add(day, share);
    byDay.set(key, day);
    const minuteKey = `${row.formId} ${minuteOf(row.createdAt)}`;
    const minute = byMinute.get(minuteKey) ?? { ...zero(), formId: row.formId, minute: minuteOf(row.createdAt) };
    add(minute, share);
    byMinute.set(minuteKey, minute);
  }
  for (const { formId, day, ...share } of byDay.values()) await addToDay(tx).run({ formId, day, ...times(-1, share) });
  for (const { formId, minute, ...share } of byMinute.values()) await addToMinute(tx).run({ formId, minute, ...times(-1, share) });
  const counts: Record<string, number> = {};
  for (const [formId, { n, ...share }] of byForm) {
    await addToForm(tx).run({ formId, ...times(-1, share) });
    counts[formId] = n;
  }
  return counts;
}

/**
 * New posts' share of the form's counters and its newest time, of a day's and of a minute's; `guard` is a condition
 * the write must meet (a single post's write counts only when its submission was written).
 */
const receivedMakers = (guard: (p: (name: string) => unknown) => SQL): StatementMaker[] => [
  (p) => sql`UPDATE ${forms} SET submission_count = submission_count + ${p("kept")},
        spam_count = spam_count + ${p("spam")}, unread_count = unread_count + ${p("kept")},
        last_submission_at = ${p("createdAt")}
      WHERE id = ${p("formId")} AND ${guard(p)}`,
  (p) => sql`INSERT INTO ${submissionDays} (form_id, day, submission_count, spam_count, unread_count, starred_count)
      SELECT ${p("formId")}, ${p("day")}, ${p("kept")}, ${p("spam")}, ${p("kept")}, 0
      WHERE ${guard(p)}
      ON CONFLICT (form_id, day) DO UPDATE SET submission_count = submission_count + excluded.submission_count,
        spam_count = spam_count + excluded.spam_count, unread_count = unread_count + excluded.unread_count`,
  (p) => sql`INSERT INTO ${submissionMinutes} (form_id, minute, submission_count, spam_count, unread_count, starred_count)
      SELECT ${p("formId")}, ${p("minute")}, ${p("kept")}, ${p("spam")}, ${p("kept")}, 0
      WHERE ${guard(p)}
      ON CONFLICT (form_id, minute) DO UPDATE SET submission_count = submission_count + excluded.submission_count,
        spam_count = spam_count + excluded.spam_count, unread_count = unread_count + excluded.unread_count`,
];
const RECEIVED = receivedMakers(whenStored);
const [RECEIVED_BY_FORM, RECEIVED_BY_DAY, RECEIVED_BY_MINUTE] = receivedMakers(() => sql`1`) as [StatementMaker, StatementMaker, StatementMaker];

/**
 * The counters of a new post, as statements of its write that count only when it was written (it may lose a race
 * to another process's): its share of the form's, the day's and the minute's counters, and the form's newest time.
 */
export function receivedCounters(row: SubmissionRow): Step[] {
  const kept = isKept(row) ? 1 : 0;
  const values = {
    submissionId: row.id,
    formId: row.formId,
    createdAt: row.createdAt,
    day: dayOf(row.createdAt),
    minute: minuteOf(row.createdAt),
    kept,
    spam: row.isSpam ? 1 : 0,
  };
  return RECEIVED.map((make) => ({ make, values }));
}

/**
 * The counters of new posts written in the caller's transaction, summed first: one statement per form (its
 * counters and newest time), one per form and day and one per form and minute, however many posts the write holds.
 */
export function receivedCountersOf(rows: SubmissionRow[]): Step[] {
  const byForm = new Map<string, { formId: string; kept: number; spam: number; createdAt: number }>();
  const byDay = new Map<string, { formId: string; day: number; kept: number; spam: number }>();
  const byMinute = new Map<string, { formId: string; minute: number; kept: number; spam: number }>();
  for (const row of rows) {
    const kept = isKept(row) ? 1 : 0;
    const spam = row.isSpam ? 1 : 0;
    const form = byForm.get(row.formId) ?? { formId: row.formId, kept: 0, spam: 0, createdAt: row.createdAt };
    form.kept += kept;
    form.spam += spam;
    form.createdAt = Math.max(form.createdAt, row.createdAt);
    byForm.set(row.formId, form);
    const key = `${row.formId} ${dayOf(row.createdAt)}`;
    const day = byDay.get(key) ?? { formId: row.formId, day: dayOf(row.createdAt), kept: 0, spam: 0 };
    day.kept += kept;
    day.spam += spam;
    byDay.set(key, day);
    const minuteKey = `${row.formId} ${minuteOf(row.createdAt)}`;
    const minute = byMinute.get(minuteKey) ?? { formId: row.formId, minute: minuteOf(row.createdAt), kept: 0, spam: 0 };
    minute.kept += kept;
    minute.spam += spam;
    byMinute.set(minuteKey, minute);
  }
  return [
    ...[...byForm.values()].map((values) => ({ make: RECEIVED_BY_FORM, values })),
    ...[...byDay.values()].map((values) => ({ make: RECEIVED_BY_DAY, values })),
    ...[...byMinute.values()].map((values) => ({ make: RECEIVED_BY_MINUTE, values })),
  ];
}
