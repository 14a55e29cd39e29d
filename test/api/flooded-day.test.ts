import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { sql } from "drizzle-orm";
import { operator } from "../../src/services/principal.ts";
import { testApp, type TestApp } from "../helpers/app.ts";

// A form whose one day took a flood: thousands of submissions inside a few minutes of it, dense and sparse
// minutes, an empty one, the day's first and last minute, and the days on either side. Then the owner marks,
// deletes, moves to spam and back, retention purges its old spam and an erasure takes one person's posts, all
// through the services. Every list (filter, order, since, offset) must then show exactly the page and the
// figures a plain query over the rows gives: the minute counters the lists read must have followed every path.

const DAY = 86_400_000;
const FLOOD_DAY = Date.parse("2026-03-10T00:00:00.000Z");
const GONE = "gone@example.com";

/** Where posts land: how many arrive at once at each time (1 ms apart, as the writer stores them). */
const WAVES: [at: number, count: number][] = [
  [FLOOD_DAY - 90_000, 40], // the day before, in its last minutes
  [FLOOD_DAY, 30], // the flooded day's very first millisecond
  [FLOOD_DAY + 60_000 + 250, 700],
  [FLOOD_DAY + 60_000 + 45_000, 30], // later in the same minute
  [FLOOD_DAY + 2 * 60_000 + 59_990, 5], // runs over into the next minute
  [FLOOD_DAY + 4 * 60_000, 900],
  [FLOOD_DAY + 7 * 60_000 + 30_000, 400],
  [FLOOD_DAY + 59 * 60_000, 1],
  [FLOOD_DAY + 13 * 3_600_000 + 17 * 60_000 + 5, 500],
  [FLOOD_DAY + DAY - 60_000 + 100, 150], // the day's last minute
  [FLOOD_DAY + DAY + 5_000, 20], // the next day
];

const FILTER_SQL = {
  all: "is_spam = 0 AND unconfirmed = 0",
  unread: "is_spam = 0 AND unconfirmed = 0 AND is_read = 0",
  starred: "is_spam = 0 AND unconfirmed = 0 AND is_starred = 1",
  spam: "is_spam = 1",
} as const;
type Filter = keyof typeof FILTER_SQL;
const FILTERS = Object.keys(FILTER_SQL) as Filter[];
const SINCES = [
  null,
  "2026-03-10", // the day's start: its first submission sits on it and is left out
  "2026-03-09T23:59:00.000Z", // the day before
  new Date(FLOOD_DAY + 60_000 + 250 + 600).toISOString(), // on a submission, in the middle of a dense minute
  new Date(FLOOD_DAY + 4 * 60_000 + 30_000).toISOString(), // between two waves, mid-minute
  new Date(FLOOD_DAY + 13 * 3_600_000).toISOString(),
  new Date(FLOOD_DAY + DAY - 1).toISOString(), // the day's last millisecond
];
const LIMIT = 25;

let t: TestApp;
let key: string;
let formId: string;

beforeAll(async () => {
  t = await testApp();
  const account = await t.account();
  key = await account.key();
  formId = (await account.form({ name: "Flooded" })).id;
  const neighbour = (await account.form({ name: "Neighbour" })).id;
  const owner = operator(account.id, "live");
  let n = 0;
  for (const [at, count] of WAVES) {
    setSystemTime(new Date(at));
    // Posts that arrive together are written together (one batch), each at its own millisecond.
    await Promise.all(
      Array.from({ length: count }, () => {
        const i = n++;
        const email = i % 401 === 3 ? GONE : `person${i}@example.com`;
        return t.services.submissions.receive(formId, { email, n: i }, { isSpam: i % 9 === 0 });
      }),
    );
    // Another form's submissions at the same times must count and show nowhere in this one.
    await t.services.submissions.receive(neighbour, { n: -1 }, { isSpam: false });
  }
  setSystemTime();

  const ids = ((await t.services.store.db.all(sql`SELECT id FROM submissions WHERE form_id = ${formId} ORDER BY created_at, id`)) as { id: string }[]).map(
    (r) => r.id,
  );
  const every = (step: number, from: number) => ids.filter((_, i) => i % step === from && i % 29 !== 5);
  await t.services.submissionBulk.apply(owner, formId, every(5, 1), "read");
  await t.services.submissionBulk.apply(owner, formId, every(11, 4), "star");
  await t.services.submissionBulk.apply(owner, formId, every(17, 2), "spam");
  await t.services.submissionBulk.apply(owner, formId, every(27, 0), "notspam");
  await t.services.submissionBulk.apply(
    owner,
    formId,
    ids.filter((_, i) => i % 29 === 5),
    "delete",
  );
  await t.services.submissionBulk.apply(owner, formId, every(31, 6), "unread");
  for (const id of every(251, 7)) await t.services.submissions.update(owner, formId, id, { isStarred: true, isRead: true });
  for (const id of every(307, 8)) await t.services.submissions.remove(owner, formId, id);
  // Retention: spam older than a day, as of five minutes into the next day, goes (the flood's first minutes).
  await t.services.forms.update(owner, formId, { spamRetentionDays: 1 });
  expect(Object.values(await t.services.retention.purge(FLOOD_DAY + DAY + 5 * 60_000)).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  const erased = await t.services.retention.erase(owner, { email: GONE });
  expect(erased.erased).toBeGreaterThan(0);
});
afterAll(() => t.close());

/** The ids a list must show, by a plain query over the rows. */
async function expectedIds(filter: Filter, since: string | null, order: "asc" | "desc"): Promise<string[]> {
  const cut = since === null ? -1 : Date.parse(since.length === 10 ? `${since}T00:00:00.000Z` : since);
  const dir = order === "asc" ? "ASC" : "DESC";
  const rows = (await t.services.store.db.all(
    sql.raw(`SELECT id FROM submissions WHERE form_id = '${formId}' AND ${FILTER_SQL[filter]} AND created_at > ${cut} ORDER BY created_at ${dir}, id ${dir}`),
  )) as { id: string }[];
  return rows.map((r) => r.id);
}

/** The offsets worth asking: around every minute's edge in the list's order, the ends, and past the end. */
async function offsetsOf(expected: string[]): Promise<number[]> {
  const minutes = new Map(
    (
      (await t.services.store.db.all(sql`SELECT id, created_at / 60000 AS minute FROM submissions WHERE form_id = ${formId}`)) as {
        id: string;
        minute: number;
      }[]
    ).map((r) => [r.id, r.minute]),
  );
  const offsets = new Set([0, 1, 2, LIMIT - 1, LIMIT, expected.length - LIMIT, expected.length - 1, expected.length, expected.length + 3]);
  for (let i = 1; i < expected.length; i++) {
    if (minutes.get(expected[i]!) !== minutes.get(expected[i - 1]!)) for (const o of [i - 1, i, i + 1]) offsets.add(o);
  }
  for (let o = 97; o < expected.length; o += 613) offsets.add(o);
  return [...offsets].filter((o) => o >= 0).sort((a, b) => a - b);
}

interface Page {
  submissions: { id: string }[];
  pagination: { limit: number; offset: number; total: number; hasMore: boolean; nextCursor: string | null };
}

async function page(query: Record<string, string>): Promise<Page> {
  const response = await t.request("GET", `/api/forms/${formId}/submissions?${new URLSearchParams(query)}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as Page;
}

describe("on a flooded day, every page and its figures are what a plain query over the rows gives", () => {
  for (const filter of FILTERS) {
    for (const order of ["desc", "asc"] as const) {
      test(`filter=${filter} order=${order}, every since, offsets around each minute's edge, and the cursor after each`, async () => {
        for (const since of SINCES) {
          const expected = await expectedIds(filter, since, order);
          const base = { filter, order, limit: String(LIMIT), ...(since ? { since } : {}) };
          for (const offset of await offsetsOf(expected)) {
            const got = await page({ ...base, offset: String(offset) });
            const ids = expected.slice(offset, offset + LIMIT);
            const hasMore = offset + LIMIT < expected.length;
            const want = { limit: LIMIT, offset, total: expected.length, hasMore, nextCursor: hasMore ? ids.at(-1)! : null };
            expect({ since, offset, ids: got.submissions.map((s) => s.id), pagination: got.pagination }).toEqual({ since, offset, ids, pagination: want });
            if (!hasMore || offset % 5 !== 0) continue;
            // The next page by cursor continues exactly where this one ended.
            const next = await page({ ...base, after: want.nextCursor! });
            const nextIds = expected.slice(offset + LIMIT, offset + 2 * LIMIT);
            const more = offset + 2 * LIMIT < expected.length;
            expect({ since, after: offset, ids: next.submissions.map((s) => s.id), pagination: next.pagination }).toEqual({
              since,
              after: offset,
              ids: nextIds,
              pagination: { limit: LIMIT, offset: 0, total: expected.length, hasMore: more, nextCursor: more ? nextIds.at(-1)! : null },
            });
          }
        }
      });
    }
  }
});

test("the form's, each day's and each minute's counters equal the rows they count", async () => {
  const count = `sum(is_spam = 0 AND unconfirmed = 0) AS submissions, sum(is_spam = 1) AS spam,
    sum(is_spam = 0 AND unconfirmed = 0 AND is_read = 0) AS unread, sum(is_spam = 0 AND unconfirmed = 0 AND is_starred = 1) AS starred`;
  const kept = `submission_count AS submissions, spam_count AS spam, unread_count AS unread, starred_count AS starred`;
  const all = async (text: string) => await t.services.store.db.all(sql.raw(text));
  // Buckets emptied by deletions stay, at zero: only the non-empty ones are compared.
  const nonZero = "submission_count + spam_count + unread_count + starred_count > 0";
  for (const [grain, table, ms] of [
    ["day", "submission_days", DAY],
    ["minute", "submission_minutes", 60_000],
  ] as const) {
    const counted = await all(`SELECT form_id, created_at / ${ms} AS b, ${count} FROM submissions GROUP BY form_id, b ORDER BY form_id, b`);
    const stored = await all(`SELECT form_id, ${grain} AS b, ${kept} FROM ${table} WHERE ${nonZero} ORDER BY form_id, b`);
    expect({ grain, buckets: stored }).toEqual({ grain, buckets: counted });
  }
  const forms = await all(`SELECT id AS form_id, ${kept} FROM forms WHERE id = '${formId}'`);
  expect(forms).toEqual(await all(`SELECT form_id, ${count} FROM submissions WHERE form_id = '${formId}' GROUP BY form_id`));
});
