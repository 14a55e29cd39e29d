import { afterAll, beforeAll, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { EXPORT_FORMATS, exportChunks } from "../../src/lib/export.ts";
import { operator, type Principal } from "../../src/services/principal.ts";

/**
 * The export's text is written straight from the stored rows (the data, JSON already, is not parsed again
 * for NDJSON and JSON): it must be the very bytes the API's Submission objects make, for data that tests
 * the edges of JSON and CSV, on both drivers.
 */
let t: TestApp;
let owner: Principal;
let formId: string;
let unpathedId: string;

const ODD = [
  { "": "empty name", "a.b": 1e21, n: -0, big: 12345678901234567890, small: 1e-7, pi: 3.14159 },
  { __proto__line: "x", text: "line\u2028sep\u2029end", emoji: "😀", nul: "a\u0000b", quote: '"', tab: "\t=1" },
  { list: [1, "two", { three: 3 }, null, [4]], obj: {}, arr: [], t: true, f: false, z: null },
  { "=formula": "+SUM(1)", "comma,name": "a,b", "it's": "x\r\ny", "１": "ＦＵＬＬ", "－": "＝1+1", neg: -5, negReal: -2.5, dash: "-", at: "@", plain: "" },
  { n: 9007199254740993, m: -9007199254740991, e: 1e300, list: ["=1", "a,b"], nested: { "=": [1, { q: '"' }] }, t: "multi\nline, \"quoted\"" },
];
// Field names JSON paths cannot carry: the export of such a form is written by JavaScript alone.
const UNPATHED = [{ "new\nline": "x", 'say "hi"': "=1", "back\\slash": [1, 2], plain: "-3" }];

beforeAll(async () => {
  t = await testApp();
  const account = await t.account();
  owner = operator(account.id, "live");
  formId = (await account.form({ name: "Odd" })).id;
  for (const [i, data] of ODD.entries()) {
    const fields: Record<string, unknown> = Object.create(null);
    Object.assign(fields, data);
    if (i === 1) fields.__proto__ = "kept as a field";
    await t.services.submissions.receive(formId, fields, { isSpam: false });
  }
  unpathedId = (await account.form({ name: "Unpathed" })).id;
  for (const data of UNPATHED) await t.services.submissions.receive(unpathedId, Object.assign(Object.create(null), data), { isSpam: false });
});
afterAll(() => t.close());

const text = async (chunks: AsyncIterable<string | Uint8Array>) => {
  let out = "";
  for await (const chunk of chunks) out += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
  return out;
};

for (const form of ["odd", "unpathed"] as const) {
  for (const format of EXPORT_FORMATS) {
    for (const order of ["asc", "desc"] as const) {
      test(`${form} field names, ${format}, order=${order}: the export's text is the one the API's objects make`, async () => {
        const query = { since: null, filter: "all" as const, order };
        const exported = await t.services.submissions.export(owner, form === "odd" ? formId : unpathedId, query);
        const expected = await text(exportChunks(format, exported.fields, exported.submissions));
        expect(await text(exported.chunks(format))).toBe(expected);
        expect(expected.length).toBeGreaterThan(form === "odd" ? 200 : 40);
      });
    }
  }
}
