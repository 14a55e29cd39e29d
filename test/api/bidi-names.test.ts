import { afterAll, beforeAll, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";

// A right-to-left override makes "invoice\u202Efdp.exe" read as "invoiceexe.pdf": such marks never reach the
// stored data, the API or the export as they came.
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

let t: TestApp;
let key: string;
let form: { id: string; slug: string };
beforeAll(async () => {
  t = await testApp();
  const account = await t.account();
  key = await account.key();
  form = await account.form({ fileUploads: true });
});
afterAll(() => t.close());

test("bidirectional marks are dropped from file names and shown as <U+…> in field names, in the API and the CSV", async () => {
  const body = new FormData();
  body.set("na\u202Eme", "Ann");
  body.set("cv", new File(["%PDF"], "invoice\u202Efdp.exe", { type: "application/pdf" }));
  const posted = await t.request("POST", `/f/${form.slug}`, { body, headers: { accept: "application/json" } });
  expect(posted.status).toBe(200);
  const json = await t.request("POST", `/f/${form.slug}`, { body: { "a\u2066b\u2069": "x" }, headers: { accept: "application/json" } });
  expect(json.status).toBe(200);

  const listed = (await (await t.request("GET", `/api/forms/${form.id}/submissions?order=asc`, { key })).json()) as {
    submissions: { data: Record<string, any> }[];
  };
  expect(listed.submissions.map((s) => s.data)).toEqual([
    { "na<U+202E>me": "Ann", cv: expect.objectContaining({ name: "invoicefdp.exe" }) },
    { "a<U+2066>b<U+2069>": "x" },
  ]);
  const csv = await (await t.request("GET", `/api/forms/${form.id}/submissions/export?format=csv`, { key })).text();
  expect(BIDI.test(csv)).toBe(false);
  expect(csv).toContain("invoicefdp.exe");
});
