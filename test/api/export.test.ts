import { afterEach, expect, setSystemTime } from "bun:test";
import type { TestApp } from "../helpers/app.ts";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { flag, makeWorld, receive, submissionObject, type FormRef, type World } from "./world.ts";

afterEach(() => setSystemTime());

/** A form with submissions at known times: a plain one, one full of formula bait, and a spam one. */
interface Exported extends World {
  shop: FormRef;
  plain: string;
  bait: string;
  spam: string;
}

const BAIT = { email: '=HYPERLINK("http://evil.example")', message: "+1 call me", name: "-2", phone: "@SUM(A1)" };

async function exportWorld(t: TestApp): Promise<Exported> {
  const w = await makeWorld(t);
  const shop = await w.account.form({ name: "Shop", slug: "shop-orders" });
  setSystemTime(new Date("2026-05-01T08:00:00.000Z"));
  const plain = await receive(t, shop, { email: "ann@example.com", message: 'She said "hi", then left\nfor good', tags: ["a", "b"] });
  setSystemTime(new Date("2026-05-02T08:00:00.000Z"));
  const bait = await receive(t, shop, { ...BAIT, tags: { nested: true } });
  setSystemTime(new Date("2026-05-03T08:00:00.000Z"));
  const spam = await receive(t, shop, { email: "\tbot@example.com", "=cmd": "\rrun" }, true);
  setSystemTime();
  return { ...w, shop, plain, bait, spam };
}

const exportUrl = (query: string) => (w: Exported) => `/api/forms/${w.shop.id}/submissions/export${query}`;

/** What `exportUrl(query)` must answer with, as a whole text. */
function exported(name: string, query: string, contentType: string, text: (w: Exported) => string): ApiScenario<Exported> {
  return {
    name,
    method: "GET",
    url: exportUrl(query),
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedBody: text,
    expectedHeaders: { "content-type": contentType },
  };
}

// A field name is a cell like any other: the spam submission's "=cmd" is escaped in the header too.
const HEADER = "id,createdAt,email,message,tags,name,phone,'=cmd";
const CSV = "text/csv; charset=utf-8";
const NDJSON = "application/x-ndjson; charset=utf-8";

const plainRow = (w: Exported) => `${w.plain},2026-05-01T08:00:00.000Z,ann@example.com,"She said ""hi"", then left\nfor good","a, b",,,`;
const baitRow = (w: Exported) => `${w.bait},2026-05-02T08:00:00.000Z,"'=HYPERLINK(""http://evil.example"")",'+1 call me,"{""nested"":true}",'-2,'@SUM(A1),`;

runScenarios<Exported>("GET /api/forms/{id}/submissions/export", exportWorld, [
  exported("CSV by default: a column per field after id and createdAt, newest first, no spam", "", CSV, (w) => `${HEADER}\n${baitRow(w)}\n${plainRow(w)}\n`),
  exported("format=csv with order=asc", "?format=csv&order=asc", CSV, (w) => `${HEADER}\n${plainRow(w)}\n${baitRow(w)}\n`),
  exported(
    "CSV escapes values and field names that start with tab or CR too; a spam export says why each is spam",
    "?format=csv&filter=spam",
    CSV,
    (w) => `${HEADER.replace("createdAt,", "createdAt,spamReason,")}\n${w.spam},2026-05-03T08:00:00.000Z,honeypot,'\tbot@example.com,,,,,"'\rrun"\n`,
  ),
  exported("CSV of a filter that matches nothing is the header alone", "?filter=starred", CSV, () => `${HEADER}\n`),
  exported("since cuts the CSV strictly after the time", "?since=2026-05-01T08:00:00Z", CSV, (w) => `${HEADER}\n${baitRow(w)}\n`),
  exported("NDJSON: one submission object per line, values as stored", "?format=ndjson&order=asc", NDJSON, (w) =>
    [
      {
        id: w.plain,
        data: { email: "ann@example.com", message: 'She said "hi", then left\nfor good', tags: ["a", "b"] },
        createdAt: "2026-05-01T08:00:00.000Z",
        isRead: false,
        isStarred: false,
        isSpam: false,
        spamReason: null,
      },
      {
        id: w.bait,
        data: { ...BAIT, tags: { nested: true } },
        createdAt: "2026-05-02T08:00:00.000Z",
        isRead: false,
        isStarred: false,
        isSpam: false,
        spamReason: null,
      },
    ]
      .map((s) => `${JSON.stringify(s)}\n`)
      .join(""),
  ),
  {
    name: "JSON: an array of submission objects, with filter and since",
    method: "GET",
    url: exportUrl("?format=json&filter=unread&since=2026-05-01"),
    key: (w) => w.admin,
    before: async (w) => {
      await flag(w.t, w.account.id, w.shop, w.plain, { isRead: true });
    },
    expectedStatus: 200,
    expectedBody: (w) => [submissionObject(w.bait, { ...BAIT, tags: { nested: true } })],
    expectedHeaders: { "content-type": "application/json; charset=utf-8" },
  },
  {
    name: "the file is offered as a download named after the slug",
    method: "GET",
    url: exportUrl("?format=ndjson"),
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedHeaders: { "content-disposition": 'attachment; filename="shop-orders-submissions.ndjson"' },
  },
  {
    name: "JSON of an empty form is an empty array",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions/export?format=json&filter=spam`,
    key: (w) => w.admin,
    expectedStatus: 200,
    expectedBody: [],
  },
  {
    name: "an unknown format is 400 invalid_parameter naming format",
    method: "GET",
    url: exportUrl("?format=xlsx"),
    key: (w) => w.admin,
    expectedStatus: 400,
    expectedBody: apiError("invalid_parameter", "format"),
  },
  ...[
    ["since=last-week", "since"],
    ["filter=unseen", "filter"],
    ["order=random", "order"],
  ].map(
    ([query, field]): ApiScenario<Exported> => ({
      name: `${query} is refused as in the list`,
      method: "GET",
      url: exportUrl(`?format=csv&${query}`),
      key: (w) => w.admin,
      expectedStatus: 400,
      expectedBody: apiError("invalid_parameter", field),
    }),
  ),
  {
    name: "an unknown form is 404 form_not_found",
    method: "GET",
    url: "/api/forms/frm_nothing/submissions/export",
    key: (w) => w.admin,
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
  {
    name: "more submissions than one read batch, with ties on createdAt, come out whole and in order",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions/export?format=ndjson&order=asc`,
    key: (w) => w.admin,
    before: async (w) => {
      // Ten submissions share each millisecond, so that batch edges fall inside ties.
      for (let i = 0; i < 1050; i++) {
        setSystemTime(new Date(Date.UTC(2027, 0, 1) + Math.floor(i / 10)));
        await receive(w.t, w.form, { n: i });
      }
      setSystemTime();
    },
    expectedStatus: 200,
    after: async (_w, _response, body) => {
      const lines = (body as string)
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as { data: { n?: number } });
      // The fixture's own submission is older than all of them.
      expect(lines.slice(1).map((s) => s.data.n)).toEqual(Array.from({ length: 1050 }, (_, i) => i));
    },
  },
]);
