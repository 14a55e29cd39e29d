import { afterAll, beforeAll, expect, setSystemTime, test } from "bun:test";
import { rebuiltFields, scannedFields } from "../../src/services/submissions/field-list.ts";
import { testApp, type TestApp } from "../helpers/app.ts";

// A purge reads the field list again in pages between turns of the event loop (scannedFields); it must be the
// very list the one statement over every submission gives (rebuiltFields), whatever the pages cut through:
// spam and kept submissions interleaved, names first seen in spam, submissions with no field at all.
let t: TestApp;
let formId: string;

beforeAll(async () => {
  t = await testApp();
  const account = await t.account();
  formId = (await account.form({ name: "Many" })).id;
  const start = Date.parse("2026-03-01T00:00:00.000Z");
  for (let i = 0; i < 4_500; i += 250) {
    setSystemTime(new Date(start + i * 1000));
    await Promise.all(
      Array.from({ length: 250 }, (_, k) => {
        const n = i + k;
        // A name every 700 submissions, one of them only in spam; a few posts with no field (a honeypot catch).
        const data: Record<string, unknown> = n % 997 === 0 ? {} : { [`field${Math.floor(n / 700)}`]: "x", email: "a@example.com" };
        if (n === 3_001) data.onlyInSpam = "y";
        return t.services.submissions.receive(formId, data, { isSpam: n % 3 === 0 || n === 3_001 });
      }),
    );
  }
  setSystemTime();
});
afterAll(() => t.close());

test("the list read in pages is the list one statement reads, in the same order", async () => {
  const whole = JSON.parse(await rebuiltFields(t.services.store.db, formId)) as string[];
  expect(whole).toContain("onlyInSpam");
  expect(whole.length).toBe(9);
  expect(await scannedFields(t.services.store.db, formId)).toEqual(whole);
});
