import { afterAll, beforeAll, describe, expect, setSystemTime, test } from "bun:test";
import { testApp, type Driver, type TestApp } from "../helpers/app.ts";
import { EXPORT_FORMATS } from "../../src/domain/types.ts";
import { exportChunks } from "../../src/services/submissions/export.ts";
import { UploadedFile } from "../../src/lib/files.ts";
import type { Principal } from "../../src/domain/types.ts";
import { operator } from "../../src/services/principal.ts";
import type { Filter, SubmissionQuery } from "../../src/services/submissions/submissions.ts";

/**
 * The export's text is written straight from the stored rows (the data, JSON already, is not parsed again
 * for NDJSON and JSON; CSV cells are read from its text): it must be the very bytes that the API's
 * Submission objects make, for data that tests the edges of JSON and CSV, with stored and forged files, spam
 * with its reasons and a text search, on both drivers.
 */
const ODD = [
  { "": "empty name", "a.b": 1e21, n: -0, big: 1.2345678901234567e19, small: 1e-7, pi: 3.25, "10": "int key", "2": 2 },
  {
    __proto__line: "x",
    text: "line\u2028sep\u2029end",
    emoji: "😀",
    nul: "a\u0000b",
    quote: '"',
    tab: "\t=1",
    ctl: "\u0001\u001f",
    slash: "a\\b",
    lone: "\ud800x",
    esc: '\\u0041\\"',
  },
  { list: [1, "two", { three: 3 }, null, [4]], obj: {}, arr: [], t: true, f: false, z: null, negZero: -0 },
  { "=formula": "+SUM(1)", "comma,name": "a,b", "it's": "x\r\ny", "１": "ＦＵＬＬ", "－": "＝1+1", neg: -5, negReal: -2.5, dash: "-", at: "@", plain: "" },
  { n: 9007199254740992, m: -9007199254740991, e: 1e300, list: ["=1", "a,b"], nested: { "=": [1, { q: '"' }] }, t: 'multi\nline, "quoted"' },
  { "new\nline": "x", 'say "hi"': "=1", "back\\slash": [1, 2], "tab\tkey": { "}": "{" }, brace: "},{", plain: "-3" },
  // The keys of the row before in the same order (the scanner expects them), other values.
  { "new\nline": "y", 'say "hi"': "=2", "back\\slash": [3], "tab\tkey": {}, brace: ",", plain: "4" },
  { "new\nline": "z", 'say "hi"': "", "back\\slash": null, "tab\tkey": "t", brace: "}", plain: 5 },
  { cv: { file: "fil_forged", name: "x.pdf", type: "application/pdf", size: 1 }, note: 'a "fil_ in text' },
];

const drivers: Driver[] = ["sqlite", "libsql"];

for (const driver of drivers) {
  describe(driver, () => {
    let t: TestApp;
    let owner: Principal;
    let formId: string;

    beforeAll(async () => {
      t = await testApp({ driver });
      const account = await t.account();
      owner = operator(account.id, "live");
      formId = (await account.form({ name: "Odd" })).id;
      // Times at the edges of a day, a year and a leap day (the export writes ISO times itself).
      const TIMES = [
        "1970-01-01T00:00:00.000Z",
        "1999-12-31T23:59:59.999Z",
        "2000-01-01T00:00:00.000Z",
        "2024-02-29T12:34:56.789Z",
        "2024-02-29T23:59:59.001Z",
      ];
      for (const [i, data] of ODD.entries()) {
        setSystemTime(TIMES[i] ? new Date(TIMES[i]) : undefined);
        const fields: Record<string, unknown> = Object.create(null);
        Object.assign(fields, data);
        if (i === 1) Object.defineProperty(fields, "__proto__", { value: "kept as a field", enumerable: true, writable: true, configurable: true });
        await t.services.submissions.receive(formId, fields, i === 3 ? { isSpam: true, spamReason: "captcha_unverified" } : { isSpam: i === 4 });
      }
      // Stored files: one alone, a list of two (one named like a formula), beside text that a search finds.
      const files: Record<string, unknown> = Object.create(null);
      Object.assign(files, {
        cv: new UploadedFile('=cv, "final".pdf', "application/pdf", new Uint8Array([1, 2, 3])),
        photos: [new UploadedFile("a.png", "image/png", new Uint8Array([4])), new UploadedFile("b.png", "image/png", new Uint8Array([5, 6]))],
        note: "Findme",
      });
      await t.services.submissions.receive(formId, files, { isSpam: false });
      const spamFile: Record<string, unknown> = Object.create(null);
      Object.assign(spamFile, { cv: new UploadedFile("s.txt", "text/plain", new Uint8Array([7])), note: "findme too" });
      await t.services.submissions.receive(formId, spamFile, { isSpam: true, spamReason: "honeypot" });
      // Marked spam by its owner: its reason is "owner".
      const marked = await t.services.submissions.receive(formId, Object.assign(Object.create(null), { note: "=owner's" }), { isSpam: false });
      await t.services.submissions.update(owner, formId, marked.id, { isSpam: true });
    });
    afterAll(() => t.close());

    const text = async (chunks: AsyncIterable<string | Uint8Array>) => {
      let out = "";
      for await (const chunk of chunks) out += typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk);
      return out;
    };

    const cases: { filter: Filter; search: string | null }[] = [
      { filter: "all", search: null },
      { filter: "spam", search: null },
      { filter: "all", search: "findme" },
      { filter: "spam", search: "FINDME" },
    ];
    for (const { filter, search } of cases) {
      for (const format of EXPORT_FORMATS) {
        for (const order of ["asc", "desc"] as const) {
          test(`filter=${filter}${search ? ` q=${search}` : ""}, ${format}, order=${order}: the export's text is the one the API's objects make`, async () => {
            const query: SubmissionQuery = { since: null, filter, order, search };
            const exported = await t.services.submissions.export(owner, formId, query);
            const expected = await text(exportChunks(format, exported.fields, exported.submissions, { spamReason: filter === "spam" }));
            expect(await text(exported.chunks(format))).toBe(expected);
            // The reference itself holds what the case is about, so that equal texts mean something.
            if (search) expect(expected.toLowerCase()).toContain("findme");
            if (filter === "spam" && !search) expect(expected).toContain(format === "csv" ? "captcha_unverified" : '"spamReason":"owner"');
            if (filter === "spam" && search) expect(expected).toContain(format === "csv" ? ",honeypot," : '"spamReason":"honeypot"');
            if (filter === "all" && !search) expect(expected).toContain("/files/fil_");
            if (filter === "all" && !search) expect(expected).toContain("1999-12-31T23:59:59.999Z");
            if (filter === "all" && !search && format === "csv") expect(expected).toContain(",x.pdf (fil_forged)");
          });
        }
      }
    }

    test("the streamed text parses back to the API's submissions, files with their paths", async () => {
      const exported = await t.services.submissions.export(owner, formId, { since: null, filter: "all", order: "asc", search: "findme" });
      const lines = (await text(exported.chunks("ndjson"))).trim().split("\n");
      expect(lines).toHaveLength(1);
      const submission = JSON.parse(lines[0]!) as { id: string; data: { cv: { path: string }; photos: { path: string }[] } };
      expect(submission.data.cv.path).toStartWith(`/api/forms/${formId}/submissions/${submission.id}/files/fil_`);
      expect(submission.data.photos.map((p) => p.path)).toHaveLength(2);
    });
  });
}
