import { afterEach, expect, setSystemTime } from "bun:test";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { flag, makeWorld, receive, submissionObject, type FormRef, type World } from "./world.ts";

afterEach(() => setSystemTime());

const admin = (w: World) => w.admin;
const listUrl =
  (query = "") =>
  (w: World) =>
    `/api/forms/${w.form.id}/submissions${query}`;

/** A list call whose parameter is refused with 400 invalid_parameter naming it. */
function refusedParameter(query: string, field: string): ApiScenario<World> {
  return {
    name: `${query} is refused, naming ${field}`,
    method: "GET",
    url: listUrl(`?${query}`),
    key: admin,
    expectedStatus: 400,
    expectedBody: apiError("invalid_parameter", field),
  };
}

/** One submission in each state on the fixture form: what was posted and the flags it ends with. */
const STATES = {
  plain: { data: { email: "ann@example.com", message: "Hello" }, flags: {} },
  read: { data: { email: "read@example.com" }, flags: { isRead: true } },
  starred: { data: { email: "star@example.com" }, flags: { isStarred: true } },
  spam: { data: { url: "http://spam.example" }, flags: { isSpam: true }, spamReason: "honeypot" },
  // Starred first and marked spam later: it must leave the starred list.
  starredSpam: { data: { email: "later-spam@example.com" }, flags: { isStarred: true, isSpam: true }, spamReason: "owner" },
} as const;
const reasonOf = (state: State) => ({ spamReason: (STATES[state] as { spamReason?: string }).spamReason ?? null });
type State = keyof typeof STATES;

interface Flagged extends World {
  ids: Record<State, string>;
}

async function flaggedWorld(t: World["t"]): Promise<Flagged> {
  const w = await makeWorld(t);
  const ids = { plain: w.submission } as Record<State, string>;
  for (const state of ["read", "starred", "spam", "starredSpam"] as const) {
    const { data, flags } = STATES[state];
    ids[state] = await receive(t, w.form, data, state === "spam");
    if (state !== "spam") await flag(t, w.account.id, w.form, ids[state], flags);
  }
  return { ...w, ids };
}

/** The list of `filter` in default (newest first) order must hold exactly these submissions. */
function filtered(filter: string, states: State[]): ApiScenario<Flagged> {
  return {
    name: `filter=${filter} holds ${states.join(", ")}`,
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions?filter=${filter}`,
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: states.map((state) => submissionObject(w.ids[state], STATES[state].data, { ...STATES[state].flags, ...reasonOf(state) })),
      fields: ["email", "message", "url"],
      pagination: { limit: 50, offset: 0, total: states.length, hasMore: false, nextCursor: null },
    }),
  };
}

runScenarios<World>("GET /api/forms/{id}/submissions: the envelope and its parameters", makeWorld, [
  {
    name: "defaults: newest first, limit 50, offset 0, every field name",
    method: "GET",
    url: listUrl(),
    key: admin,
    before: async (w) => {
      await receive(w.t, w.form, { name: "Bob", email: "bob@example.com" });
    },
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: [
        submissionObject(expect.stringMatching(/^sub_/), { name: "Bob", email: "bob@example.com" }),
        submissionObject(w.submission, { email: "ann@example.com", message: "Hello" }),
      ],
      fields: ["email", "message", "name"],
      pagination: { limit: 50, offset: 0, total: 2, hasMore: false, nextCursor: null },
    }),
  },
  {
    name: "by slug, with limit and offset echoed and hasMore set",
    method: "GET",
    url: (w) => `/api/forms/${w.form.slug}/submissions?limit=1&offset=0&order=asc`,
    key: admin,
    before: async (w) => {
      await receive(w.t, w.form, { email: "bob@example.com" });
    },
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: [submissionObject(w.submission, { email: "ann@example.com", message: "Hello" })],
      fields: ["email", "message"],
      pagination: { limit: 1, offset: 0, total: 2, hasMore: true, nextCursor: w.submission },
    }),
  },
  {
    name: "an offset past the end is an empty page, not an error",
    method: "GET",
    url: listUrl("?offset=500"),
    key: admin,
    expectedStatus: 200,
    expectedBody: { submissions: [], fields: ["email", "message"], pagination: { limit: 50, offset: 500, total: 1, hasMore: false, nextCursor: null } },
  },
  {
    name: "limit 100 is the largest page",
    method: "GET",
    url: listUrl("?limit=100"),
    key: admin,
    expectedStatus: 200,
    expectedContent: ['"limit":100'],
  },
  {
    name: "a form without submissions lists nothing and no fields",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions`,
    key: admin,
    before: async (w) => {
      w.form = await w.account.form({ name: "Empty" });
    },
    expectedStatus: 200,
    expectedBody: { submissions: [], fields: [], pagination: { limit: 50, offset: 0, total: 0, hasMore: false, nextCursor: null } },
  },
  refusedParameter("limit=0", "limit"),
  refusedParameter("limit=101", "limit"),
  refusedParameter("limit=abc", "limit"),
  refusedParameter("limit=2.5", "limit"),
  refusedParameter("limit=", "limit"),
  refusedParameter("offset=-1", "offset"),
  refusedParameter("offset=ten", "offset"),
  refusedParameter("order=newest", "order"),
  refusedParameter("order=DESC", "order"),
  refusedParameter("filter=read", "filter"),
  refusedParameter("since=yesterday", "since"),
  refusedParameter("since=2026-02-30", "since"),
  refusedParameter("since=2026-11-22T25:00:00Z", "since"),
  refusedParameter("since=1732000000", "since"),
  refusedParameter("since=7x", "since"),
  refusedParameter("since=-1h", "since"),
  {
    name: "an unknown form is 404 form_not_found",
    method: "GET",
    url: "/api/forms/frm_missing/submissions",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
]);

runScenarios<Flagged>("GET /api/forms/{id}/submissions?filter", flaggedWorld, [
  filtered("all", ["starred", "read", "plain"]),
  filtered("unread", ["starred", "plain"]),
  filtered("starred", ["starred"]),
  filtered("spam", ["starredSpam", "spam"]),
  {
    name: "the form's submissionCount is what filter=all counts: spam is left out",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}`,
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedContent: ['"submissionCount":3'],
  },
]);

/** Submissions of a fresh form made at fixed times, so that `since` has exact edges. */
interface Timed extends World {
  timed: FormRef;
  at: Record<string, string>;
}

const TIMES = ["2026-03-01T10:00:00.000Z", "2026-03-02T00:00:00.000Z", "2026-03-02T12:00:00.000Z", "2026-03-02T12:00:00.000Z"];

async function timedWorld(t: World["t"]): Promise<Timed> {
  const w = await makeWorld(t);
  const timed = await w.account.form({ name: "Timed" });
  const at: Record<string, string> = {};
  for (const [i, time] of TIMES.entries()) {
    setSystemTime(new Date(time));
    at[`s${i}`] = await receive(t, timed, { n: i });
  }
  setSystemTime();
  return { ...w, timed, at };
}

/** `since=value` (as written in a URL; asked at `now` when given) must keep exactly these submissions, oldest first. */
function since(value: string, kept: string[], now?: string): ApiScenario<Timed> {
  return {
    name: `since=${decodeURIComponent(value)}${now ? ` at ${now}` : ""} keeps ${kept.join(", ") || "nothing"}`,
    method: "GET",
    url: (w) => `/api/forms/${w.timed.id}/submissions?order=asc&since=${value}`,
    key: (w) => w.admin,
    before: async () => {
      if (now) setSystemTime(new Date(now));
    },
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: kept.map((name) => submissionObject(w.at[name]!, { n: Number(name.slice(1)) })),
      fields: ["n"],
      pagination: { limit: 50, offset: 0, total: kept.length, hasMore: false, nextCursor: null },
    }),
  };
}

runScenarios<Timed>("GET /api/forms/{id}/submissions?since", timedWorld, [
  since("2026-02-28", ["s0", "s1", "s2", "s3"]),
  since("2026-03-01T10:00:00Z", ["s1", "s2", "s3"]),
  since("2026-03-01T09:59:59.999Z", ["s0", "s1", "s2", "s3"]),
  since("2026-03-02", ["s2", "s3"]),
  since("2026-03-02T01:00:00%2B02:00", ["s1", "s2", "s3"]),
  since("2026-03-02T11:59:59.999Z", ["s2", "s3"]),
  // s3 was stored in the same clock millisecond as s2: it gets the next millisecond, so a poll never misses it.
  since("2026-03-02T12:00:00.000Z", ["s3"]),
  since("2026-03-02T12:00:00.001Z", []),
  // A span is measured back from the time of the request.
  since("2h", ["s2", "s3"], "2026-03-02T13:00:00.000Z"),
  since("1h", ["s3"], "2026-03-02T13:00:00.000Z"),
  since("3d", ["s0", "s1", "s2", "s3"], "2026-03-02T13:00:00.000Z"),
  since("90m", [], "2026-03-02T13:30:00.002Z"),
  {
    name: "two stored in the same clock millisecond come out one after the other, newest first by default",
    method: "GET",
    url: (w) => `/api/forms/${w.timed.id}/submissions?since=2026-03-02T11:00:00Z`,
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: [submissionObject(w.at.s3!, { n: 3 }), submissionObject(w.at.s2!, { n: 2 })],
      fields: ["n"],
      pagination: { limit: 50, offset: 0, total: 2, hasMore: false, nextCursor: null },
    }),
  },
  {
    name: "since with the spam filter counts only spam after the date",
    method: "GET",
    url: (w) => `/api/forms/${w.timed.id}/submissions?since=2026-03-01T12:00:00Z&filter=spam`,
    key: (w) => w.admin,
    before: async (w) => {
      await flag(w.t, w.account.id, w.timed, w.at.s0!, { isSpam: true });
      await flag(w.t, w.account.id, w.timed, w.at.s2!, { isSpam: true });
    },
    expectedStatus: 200,
    expectedBody: (w) => ({
      submissions: [submissionObject(w.at.s2!, { n: 2 }, { isSpam: true, spamReason: "owner" })],
      fields: ["n"],
      pagination: { limit: 50, offset: 0, total: 1, hasMore: false, nextCursor: null },
    }),
  },
]);
