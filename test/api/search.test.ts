import { afterAll, beforeAll, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { getJson, makeWorld, receive, type World } from "./world.ts";

let t: TestApp;
let w: World;
const ids: Record<string, string> = {};

beforeAll(async () => {
  t = await testApp();
  w = await makeWorld(t);
  ids.ada = await receive(t, w.form, { name: "Ada Lovelace", email: "ada@example.com" });
  ids.bob = await receive(t, w.form, { name: "Bob", topics: ["Sales", "billing"] });
  ids.spam = await receive(t, w.form, { name: "Ada's bot" }, true);
});
afterAll(() => t.close());

const idsOf = (body: { submissions: { id: string }[] }) => body.submissions.map((s) => s.id);

test("q finds submissions with a value containing the text, ignoring case, inside lists too; total counts the matches", async () => {
  const ada = await getJson(w, `/api/forms/${w.form.id}/submissions?q=ADA`);
  expect({ ids: idsOf(ada.body), total: ada.body.pagination.total }).toEqual({ ids: [ids.ada!], total: 1 });
  const billing = await getJson(w, `/api/forms/${w.form.id}/submissions?q=Billing`);
  expect(idsOf(billing.body)).toEqual([ids.bob!]);
  const spam = await getJson(w, `/api/forms/${w.form.id}/submissions?q=ada&filter=spam`);
  expect(idsOf(spam.body)).toEqual([ids.spam!]);
  // Field names are not searched, and wildcards are plain text.
  expect(idsOf((await getJson(w, `/api/forms/${w.form.id}/submissions?q=email`)).body)).toEqual([]);
  expect(idsOf((await getJson(w, `/api/forms/${w.form.id}/submissions?q=%25`)).body)).toEqual([]);
});

test("the export takes the same q", async () => {
  const answer = await t.request("GET", `/api/forms/${w.form.id}/submissions/export?format=ndjson&q=lovelace`, { key: w.admin });
  const lines = (await answer.text())
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line).id);
  expect(lines).toEqual([ids.ada!]);
});

test("a q over 200 characters is invalid_parameter", async () => {
  const answer = await getJson(w, `/api/forms/${w.form.id}/submissions?q=${"x".repeat(201)}`);
  expect(answer).toEqual({
    status: 400,
    body: {
      error: { code: "invalid_parameter", message: "q must be at most 200 characters.", field: "q" },
      errors: [{ code: "invalid_parameter", message: "q must be at most 200 characters.", field: "q" }],
    },
  });
});
