import { and, asc, desc, eq, getTableColumns, gt, lt, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { preparedOn } from "../../db/prepared.ts";
import { submissionDays, submissionMinutes, submissions, type FormRow, type SubmissionRow } from "../../db/schema.ts";
import { DAY_MS, MINUTE_MS } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { dayOf, minuteOf } from "./counters.ts";

export const FILTERS = ["all", "unread", "starred", "spam", "unconfirmed", "awaiting_payment"] as const;
export type Filter = (typeof FILTERS)[number];
export type Order = "asc" | "desc";

type Counter = "submissionCount" | "spamCount" | "unreadCount" | "starredCount";

// Unconfirmed submissions (double opt-in) and those awaiting payment have no counter: they are few, and counted when listed.
type CountedFilter = Exclude<Filter, "unconfirmed" | "awaiting_payment">;
/** The lists that no counter knows: their rows are counted when listed. */
export const UNCOUNTED: readonly Filter[] = ["unconfirmed", "awaiting_payment"];
export const COUNTER_OF: Record<CountedFilter, Counter> = {
  all: "submissionCount",
  unread: "unreadCount",
  starred: "starredCount",
  spam: "spamCount",
};

// Literal conditions (not bound parameters) so that SQLite can match them to the partial indexes.
export const FILTER_SQL: Record<Filter, SQL> = {
  all: sql`${submissions.isSpam} = 0 AND ${submissions.unconfirmed} = 0 AND ${submissions.unpaid} = 0`,
  unread: sql`${submissions.isSpam} = 0 AND ${submissions.isRead} = 0 AND ${submissions.unconfirmed} = 0 AND ${submissions.unpaid} = 0`,
  starred: sql`${submissions.isSpam} = 0 AND ${submissions.isStarred} = 1 AND ${submissions.unconfirmed} = 0 AND ${submissions.unpaid} = 0`,
  spam: sql`${submissions.isSpam} = 1`,
  unconfirmed: sql`${submissions.unconfirmed} = 1 AND ${submissions.isSpam} = 0`,
  awaiting_payment: sql`${submissions.paymentStatus} = 'awaiting' AND ${submissions.isSpam} = 0`,
};

/**
 * `payment=paid|expired|refunded` (docs/api.md, "Payments"): submissions by their payment's state, in place of the
 * list's kept-ness (an expired one was never kept); `paid` leaves out refunded ones.
 */
export const PAYMENT_LISTS = ["paid", "expired", "refunded"] as const;
export type PaymentList = (typeof PAYMENT_LISTS)[number];
export const PAYMENT_SQL: Record<PaymentList, SQL> = {
  paid: sql`${submissions.paymentStatus} = 'paid' AND ${submissions.isSpam} = 0`,
  expired: sql`${submissions.paymentStatus} = 'expired' AND ${submissions.isSpam} = 0`,
  refunded: sql`${submissions.paymentStatus} = 'refunded' AND ${submissions.isSpam} = 0`,
};

const INDEX_OF: Record<Filter, string> = {
  all: "submissions_form_spam",
  unread: "submissions_form_unread",
  starred: "submissions_form_starred",
  spam: "submissions_form_spam",
  unconfirmed: "submissions_form_unconfirmed",
  awaiting_payment: "submissions_form_payment",
};

/**
 * The submissions table read through the index made for `filter`. Left to itself SQLite takes (form_id,
 * is_spam, …) for unread and starred too, and then walks every kept submission of the form to find the few
 * unread or starred ones. INDEXED BY also makes a dropped or changed index an error, not a silent scan.
 */
export const through = (filter: Filter, payment?: PaymentList | null) =>
  sql`${submissions} INDEXED BY ${sql.identifier(payment ? INDEX_OF.awaiting_payment : INDEX_OF[filter])}`;

/** The condition of a list: its filter's, or with `payment` its payment state's (and the filter's, unless it is `all`). */
export const listSql = (filter: Filter, payment?: PaymentList | null): SQL =>
  !payment ? FILTER_SQL[filter] : filter === "all" ? PAYMENT_SQL[payment] : sql`${FILTER_SQL[filter]} AND ${PAYMENT_SQL[payment]}`;

type Columns = ReturnType<typeof getTableColumns<typeof submissions>>;
/** Every column as plain SQL (drizzle refuses table columns on an SQL source), each mapped as its column is. */
export const COLUMNS = Object.fromEntries(Object.entries(getTableColumns(submissions)).map(([name, column]) => [name, sql`${column}`.mapWith(column)])) as {
  [K in keyof Columns]: SQL<Columns[K]["_"]["data"]>;
};

const daysOf = preparedOn((db) =>
  db
    .select({
      day: submissionDays.day,
      submissionCount: submissionDays.submissionCount,
      spamCount: submissionDays.spamCount,
      unreadCount: submissionDays.unreadCount,
      starredCount: submissionDays.starredCount,
    })
    .from(submissionDays)
    .where(eq(submissionDays.formId, sql.placeholder("formId")))
    .orderBy(asc(submissionDays.day))
    .prepare(),
);

// Each statement below is prepared once per connection for each filter (and order, and cursor or not).
function perKey<T>(build: (key: string) => (db: Db) => T): (key: string) => (db: Db) => T {
  const made = new Map<string, (db: Db) => T>();
  return (key) => {
    let statement = made.get(key);
    if (!statement) {
      statement = build(key);
      made.set(key, statement);
    }
    return statement;
  };
}

/** The sum of one counter over a form's days after `day`. */
const daysAfter = perKey((counter) =>
  preparedOn((db) =>
    db
      .select({ n: sql<number>`coalesce(sum(${submissionDays[counter as Counter]}), 0)` })
      .from(submissionDays)
      .where(and(eq(submissionDays.formId, sql.placeholder("formId")), gt(submissionDays.day, sql.placeholder("day"))))
      .prepare(),
  ),
);

/** The sum of one counter over a form's minutes strictly between `after` and `before`. */
const minutesBetween = perKey((counter) =>
  preparedOn((db) =>
    db
      .select({ n: sql<number>`coalesce(sum(${submissionMinutes[counter as Counter]}), 0)` })
      .from(submissionMinutes)
      .where(
        and(
          eq(submissionMinutes.formId, sql.placeholder("formId")),
          gt(submissionMinutes.minute, sql.placeholder("after")),
          lt(submissionMinutes.minute, sql.placeholder("before")),
        ),
      )
      .prepare(),
  ),
);

/**
 * The first of a form's minutes strictly between `after` and `before`, in the list's order, by which the
 * counter has passed `skip`, and how many it counted before that minute: SQLite adds up the day's minutes
 * (at most 1,440) without handing them over.
 */
const minuteAt = perKey((key) => {
  const [counter, order] = key.split(" ") as [Counter, Order];
  const n = submissionMinutes[counter];
  const by = order === "asc" ? sql`ASC` : sql`DESC`;
  return preparedOn((db) =>
    db
      .select({ minute: sql<number>`minute`, before: sql<number>`upto - n` })
      .from(
        sql`(SELECT ${submissionMinutes.minute} AS minute, ${n} AS n, sum(${n}) OVER (ORDER BY ${submissionMinutes.minute} ${by} ROWS UNBOUNDED PRECEDING) AS upto
          FROM ${submissionMinutes}
          WHERE ${submissionMinutes.formId} = ${sql.placeholder("formId")} AND ${submissionMinutes.minute} > ${sql.placeholder("after")}
            AND ${submissionMinutes.minute} < ${sql.placeholder("before")})`,
      )
      // The one minute whose running sum passes `skip`: no sort of the day's minutes to find the first.
      .where(sql`upto - n <= ${sql.placeholder("skip")} AND upto > ${sql.placeholder("skip")}`)
      .limit(1)
      .prepare(),
  );
});

/** Rows of one filter in a window of createdAt: the part of a day after `since`, counted through the filter's index. */
const countWindow = perKey((filter) =>
  preparedOn((db) =>
    db
      .select({ n: sql<number>`count(*)` })
      .from(through(filter as Filter))
      .where(
        and(
          eq(submissions.formId, sql.placeholder("formId")),
          FILTER_SQL[filter as Filter],
          gt(submissions.createdAt, sql.placeholder("after")),
          lt(submissions.createdAt, sql.placeholder("before")),
        ),
      )
      .prepare(),
  ),
);

/** One page: `after` < createdAt < `before`, past the cursor (when given), `skip` rows in, `take` rows. */
const pageRows = perKey((key) => {
  const [filter, order, cursor] = key.split(" ") as [Filter, Order, string];
  const pastCursor =
    cursor === "cursor"
      ? order === "asc"
        ? sql`(${submissions.createdAt}, ${submissions.id}) > (${sql.placeholder("cursorAt")}, ${sql.placeholder("cursorId")})`
        : sql`(${submissions.createdAt}, ${submissions.id}) < (${sql.placeholder("cursorAt")}, ${sql.placeholder("cursorId")})`
      : undefined;
  const by = order === "asc" ? [asc(submissions.createdAt), asc(submissions.id)] : [desc(submissions.createdAt), desc(submissions.id)];
  return preparedOn((db) =>
    db
      .select(COLUMNS)
      .from(through(filter))
      .where(
        and(
          eq(submissions.formId, sql.placeholder("formId")),
          FILTER_SQL[filter],
          gt(submissions.createdAt, sql.placeholder("after")),
          lt(submissions.createdAt, sql.placeholder("before")),
          pastCursor,
        ),
      )
      .orderBy(...by)
      .limit(sql.placeholder("take"))
      .offset(sql.placeholder("skip"))
      .prepare(),
  );
});

const cursorOf = preparedOn((db) =>
  db
    .select({ createdAt: submissions.createdAt })
    .from(submissions)
    .where(and(eq(submissions.id, sql.placeholder("id")), eq(submissions.formId, sql.placeholder("formId"))))
    .prepare(),
);

/** What one page asks for. */
export interface PageQuery {
  since: number | null;
  filter: Filter;
  order: Order;
  limit: number;
  offset: number;
  /** The id of the last submission of the previous page (keyset paging), or null. */
  after: string | null;
}

const NO_BOUND = Number.MAX_SAFE_INTEGER;
const MINUTES_PER_DAY = DAY_MS / MINUTE_MS;

/** The rows of a filter after `since` inside its own day: those in its own minute, and all of the day's. */
interface SincePart {
  inMinute: number;
  inDay: number;
}

/**
 * The rows of a filter after `since` inside `since`'s own day: the few after it in its own minute, walked
 * through the filter's index, and the minute counters of the rest of the day. A day that took a flood holds
 * up to a million rows; a minute of it, about 700.
 */
async function sinceDayPart(db: Db, formId: string, filter: CountedFilter, since: number): Promise<SincePart> {
  const minute = minuteOf(since);
  const walked: { n: number } | undefined = await countWindow(filter)(db).get({ formId, after: since, before: (minute + 1) * MINUTE_MS });
  const later: { n: number } | undefined = await minutesBetween(COUNTER_OF[filter])(db).get({
    formId,
    after: minute,
    before: (dayOf(since) + 1) * MINUTES_PER_DAY,
  });
  const inMinute = walked?.n ?? 0;
  return { inMinute, inDay: inMinute + (later?.n ?? 0) };
}

/** Where a page's walk starts: `after` < createdAt < `before`, `skip` rows in. */
interface Walk {
  after: number;
  before: number;
  skip: number;
}

/**
 * The walk to the `skip`th row (in the list's order) of a day that holds `count` rows of the filter (after
 * `since`, on since's own day, whose rows after it in its minute are `part.inMinute`): the minute counters
 * find the minute it falls in, so the walk crosses one minute's rows at most. Minute counters that disagree
 * with the day's (never, when only formsvc writes) fall back to walking the day.
 */
async function walkIntoDay(db: Db, formId: string, query: PageQuery, day: { day: number; count: number }, skip: number, part: SincePart | null): Promise<Walk> {
  const asc = query.order === "asc";
  const since = query.since ?? -1;
  const wholeDay: Walk = asc
    ? { after: Math.max(since, day.day * DAY_MS - 1), before: NO_BOUND, skip }
    : { after: since, before: (day.day + 1) * DAY_MS, skip };
  const first = day.day * MINUTES_PER_DAY;
  let after = first - 1;
  let left = skip;
  if (query.since !== null && part !== null && dayOf(query.since) === day.day) {
    // since's own minute is counted by its rows, not its counter: it comes first (asc) or last (desc).
    const minute = minuteOf(query.since);
    after = minute;
    if (asc && left < part.inMinute) return { after: since, before: NO_BOUND, skip: left };
    if (asc) left -= part.inMinute;
    else if (left >= day.count - part.inMinute) return { after: since, before: (minute + 1) * MINUTE_MS, skip: left - (day.count - part.inMinute) };
  }
  const at: { minute: number; before: number } | undefined = await minuteAt(`${COUNTER_OF[query.filter as CountedFilter]} ${query.order}`)(db).get({
    formId,
    after,
    before: first + MINUTES_PER_DAY,
    skip: left,
  });
  if (!at) return wholeDay;
  const inMinute = left - at.before;
  return asc
    ? { after: Math.max(since, at.minute * MINUTE_MS - 1), before: NO_BOUND, skip: inMinute }
    : { after: since, before: (at.minute + 1) * MINUTE_MS, skip: inMinute };
}

/**
 * One page of a form's submissions and the exact count of all that match. Nothing walks more than a minute's
 * rows: without `since` the count is the form's counter; with it, the rows after `since` in its own minute
 * (through the filter's index) plus the minute counters of the rest of its day and the day counters of the
 * later days. A deep offset finds its day from the day counters, its minute from that day's minute counters,
 * and walks only inside that minute.
 */
export async function readPage(db: Db, form: FormRow, query: PageQuery): Promise<{ rows: SubmissionRow[]; total: number }> {
  // Unconfirmed submissions have no counter: their lists are read by the search path.
  const filter = query.filter as CountedFilter;
  const counter = COUNTER_OF[filter];
  const since = query.since ?? -1;
  let days: { day: number; count: number }[] | null = null;
  const loadDays = async (firstDayPart: number | null) => {
    const all: { day: number; submissionCount: number; spamCount: number; unreadCount: number; starredCount: number }[] = await daysOf(db).all({
      formId: form.id,
    });
    const sinceDay = query.since === null ? -Infinity : dayOf(query.since);
    const kept = all.filter((d) => d.day > sinceDay && d[counter] > 0).map((d) => ({ day: d.day, count: d[counter] }));
    if (firstDayPart !== null && firstDayPart > 0) kept.unshift({ day: sinceDay, count: firstDayPart });
    return kept;
  };

  let total = form[counter];
  let part: SincePart | null = null;
  if (query.since !== null) {
    part = await sinceDayPart(db, form.id, filter, query.since);
    if (query.offset > 0 && query.after === null) {
      days = await loadDays(part.inDay);
      total = days.reduce((sum, d) => sum + d.count, 0);
    } else {
      // A first page (or a cursor page) needs only the sum, which SQLite adds up without handing over every day.
      const later: { n: number } | undefined = await daysAfter(counter)(db).get({ formId: form.id, day: dayOf(query.since) });
      total = part.inDay + (later?.n ?? 0);
    }
  }

  const params = { formId: form.id, after: since, before: NO_BOUND, take: query.limit + 1, skip: query.offset, cursorAt: 0, cursorId: "" };
  if (query.after !== null) {
    const cursor: { createdAt: number } | undefined = await cursorOf(db).get({ id: query.after, formId: form.id });
    if (!cursor) {
      throw new ApiError("invalid_parameter", `after must be the id of a submission of this form (the nextCursor of a page); ${query.after} is not one.`, {
        field: "after",
      });
    }
    Object.assign(params, { cursorAt: cursor.createdAt, cursorId: query.after, skip: 0 });
  } else if (query.offset > 0) {
    if (query.offset >= total) return { rows: [], total };
    days ??= await loadDays(null);
    const ordered = query.order === "asc" ? days : [...days].reverse();
    let before = 0;
    const found = ordered.find((d) => {
      if (before + d.count > query.offset) return true;
      before += d.count;
      return false;
    });
    // Counters that disagree with the rows (never, when only formsvc writes) fall back to walking from the start.
    if (found) Object.assign(params, await walkIntoDay(db, form.id, query, found, query.offset - before, part));
  }
  const rows: SubmissionRow[] = await pageRows(`${query.filter} ${query.order} ${query.after !== null ? "cursor" : "plain"}`)(db).all(params);
  return { rows, total };
}
