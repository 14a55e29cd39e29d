import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { operator } from "../../src/services/principal.ts";

/** What the test knows about each stored submission, to work out every list on its own. */
interface Known {
  id: string;
  createdAt: number;
  isRead: boolean;
  isStarred: boolean;
  isSpam: boolean;
}

const COUNT = 300;
// Three submissions are stored at each clock instant (1 ms apart), two minutes apart, from 22:00 to 01:18:
// i = 180 to 182 sit at midnight.
const START = Date.parse("2026-06-01T22:00:00.000Z");
const timeOf = (i: number) => START + Math.floor(i / 3) * 120_000;

const FILTERS = ["all", "unread", "starred", "spam"] as const;
const MATCHES: Record<(typeof FILTERS)[number], (s: Known) => boolean> = {
  all: (s) => !s.isSpam,
  unread: (s) => !s.isSpam && !s.isRead,
  starred: (s) => !s.isSpam && s.isStarred,
  spam: (s) => s.isSpam,
};
// A date cuts at midnight, where the first of three submissions sits exactly: strictly after leaves it out.
const SINCES = [null, "2026-06-02", "2026-06-01T22:30:00.000Z"] as const;
const LIMITS = [1, 7, 50, 100];

let t: TestApp;
let key: string;
let formId: string;
const known: Known[] = [];

// One database for the whole file: every test here only reads, and building it is the slow part.
beforeAll(async () => {
  t = await testApp();
  const account = await t.account();
  key = await account.key();
  const form = await account.form({ name: "Busy" });
  const neighbour = await account.form({ name: "Neighbour" });
  formId = form.id;
  const owner = operator(account.id, "live");
  for (let i = 0; i < COUNT; i++) {
    setSystemTime(new Date(timeOf(i)));
    const isSpam = i % 7 === 0;
    const { id, createdAt } = await t.services.submissions.receive(form.id, { n: i }, { isSpam });
    // Another form's submissions at the same times must never show up in this form's pages.
    if (i % 4 === 0) await t.services.submissions.receive(neighbour.id, { n: -i }, { isSpam: false });
    const flags = { isRead: i % 3 === 0, isStarred: i % 5 === 0 };
    if (flags.isRead || flags.isStarred) await t.services.submissions.update(owner, form.id, id, flags);
    // Submissions stored within one clock millisecond get rising createdAt values (1 ms apart): use what was stored.
    known.push({ id, createdAt: Date.parse(createdAt), isSpam, ...flags });
  }
  setSystemTime();
});
afterAll(() => t.close());

/** The ids the list must show, worked out from what was stored. */
function expectedIds(filter: (typeof FILTERS)[number], since: string | null, order: "asc" | "desc"): string[] {
  const cut = since === null ? -Infinity : Date.parse(since.length === 10 ? `${since}T00:00:00.000Z` : since);
  const matching = known.filter((s) => MATCHES[filter](s) && s.createdAt > cut);
  matching.sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  if (order === "desc") matching.reverse();
  return matching.map((s) => s.id);
}

/** Walks every page by raising offset by limit until hasMore is false, checking each page's figures. */
async function walk(query: Record<string, string>, limit: number, expectedTotal: number): Promise<string[]> {
  const seen: string[] = [];
  for (let offset = 0; ; offset += limit) {
    const params = new URLSearchParams({ ...query, limit: String(limit), offset: String(offset) });
    const response = await t.request("GET", `/api/forms/${formId}/submissions?${params}`, { key });
    const page = (await response.json()) as { submissions: { id: string }[]; pagination: unknown };
    const hasMore = offset + limit < expectedTotal;
    const nextCursor = hasMore ? page.submissions.at(-1)!.id : null;
    expect({ offset, pagination: page.pagination }).toEqual({ offset, pagination: { limit, offset, total: expectedTotal, hasMore, nextCursor } });
    expect(page.submissions.length).toBe(Math.max(0, Math.min(limit, expectedTotal - offset)));
    seen.push(...page.submissions.map((s) => s.id));
    if (!hasMore) return seen;
  }
}

/** Walks every page by passing each page's nextCursor as `after`, checking each page's figures. */
async function walkByCursor(query: Record<string, string>, limit: number, expectedTotal: number): Promise<string[]> {
  const seen: string[] = [];
  let after: string | null = null;
  for (;;) {
    const params = new URLSearchParams({ ...query, limit: String(limit), ...(after ? { after } : {}) });
    const response = await t.request("GET", `/api/forms/${formId}/submissions?${params}`, { key });
    const page = (await response.json()) as { submissions: { id: string }[]; pagination: { nextCursor: string | null } };
    const hasMore = seen.length + limit < expectedTotal;
    const nextCursor = hasMore ? page.submissions.at(-1)!.id : null;
    expect({ seen: seen.length, pagination: page.pagination as unknown }).toEqual({
      seen: seen.length,
      pagination: { limit, offset: 0, total: expectedTotal, hasMore, nextCursor },
    });
    seen.push(...page.submissions.map((s) => s.id));
    if (!hasMore) return seen;
    after = page.pagination.nextCursor;
  }
}

describe("walking the pages by cursor (after=nextCursor) returns each matching submission exactly once, in order", () => {
  for (const filter of FILTERS) {
    for (const since of SINCES) {
      for (const order of ["asc", "desc"] as const) {
        test(`filter=${filter}${since ? ` since=${since}` : ""} order=${order}, with limits ${LIMITS.join(", ")}`, async () => {
          const expected = expectedIds(filter, since, order);
          const query: Record<string, string> = { filter, order, ...(since ? { since } : {}) };
          for (const limit of LIMITS) {
            expect({ limit, ids: await walkByCursor(query, limit, expected.length) }).toEqual({ limit, ids: expected });
          }
        });
      }
    }
  }
});

test("after and offset together, or an after that is no submission of this form, are refused", async () => {
  const other = await t.request("GET", `/api/forms/${formId}/submissions?after=sub_00000000000000000000zz`, { key });
  expect({ status: other.status, body: await other.json() }).toEqual({
    status: 400,
    body: {
      error: { code: "invalid_parameter", field: "after", message: expect.stringContaining("after must be the id of a submission of this form") },
      errors: [{ code: "invalid_parameter", field: "after", message: expect.stringContaining("after must be the id of a submission of this form") }],
    },
  });
  const first = expectedIds("all", null, "desc")[0]!;
  const both = await t.request("GET", `/api/forms/${formId}/submissions?after=${first}&offset=5`, { key });
  expect({ status: both.status, body: await both.json() }).toEqual({
    status: 400,
    body: {
      error: { code: "invalid_parameter", field: "offset", message: "offset cannot be combined with after: a cursor already says where the page starts." },
      errors: [{ code: "invalid_parameter", field: "offset", message: "offset cannot be combined with after: a cursor already says where the page starts." }],
    },
  });
  const garbage = await t.request("GET", `/api/forms/${formId}/submissions?after=x'--`, { key });
  expect(garbage.status).toBe(400);
});

describe("walking the pages returns each matching submission exactly once, in order", () => {
  for (const filter of FILTERS) {
    for (const since of SINCES) {
      for (const order of ["asc", "desc"] as const) {
        test(`filter=${filter}${since ? ` since=${since}` : ""} order=${order}, with limits ${LIMITS.join(", ")}`, async () => {
          const expected = expectedIds(filter, since, order);
          const query: Record<string, string> = { filter, order, ...(since ? { since } : {}) };
          for (const limit of LIMITS) {
            expect({ limit, ids: await walk(query, limit, expected.length) }).toEqual({ limit, ids: expected });
          }
        });
      }
    }
  }
});

test("the data set really exercises every case", () => {
  // Guards the test itself: each filter and cut must leave a non-trivial, multi-page set.
  for (const filter of FILTERS) {
    for (const since of SINCES) expect({ filter, since, many: expectedIds(filter, since, "asc").length > 7 }).toEqual({ filter, since, many: true });
  }
  // The midnight cut falls inside a run of three submissions stored in the same clock millisecond.
  expect(
    known.filter((s) => Math.abs(s.createdAt - Date.parse("2026-06-02T00:00:00.000Z")) <= 2).map((s) => s.createdAt - Date.parse("2026-06-02T00:00:00.000Z")),
  ).toEqual([0, 1, 2]);
  expect(new Set(known.map((s) => s.id)).size).toBe(COUNT);
});

test("the default page is the newest 50 of filter=all", async () => {
  const response = await t.request("GET", `/api/forms/${formId}/submissions`, { key });
  const page = (await response.json()) as { submissions: { id: string }[]; pagination: unknown };
  const all = expectedIds("all", null, "desc");
  expect(page.submissions.map((s) => s.id)).toEqual(all.slice(0, 50));
  expect(page.pagination).toEqual({ limit: 50, offset: 0, total: all.length, hasMore: true, nextCursor: all[49] });
});
