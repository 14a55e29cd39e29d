import { afterEach, describe, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { getJson, makeWorld, receive, submissionObject, type World } from "./world.ts";

const admin = (w: World) => w.admin;
const itemUrl = (w: World) => `/api/forms/${w.form.id}/submissions/${w.submission}`;
const ANN = { email: "ann@example.com", message: "Hello" };

/** A flag patch that must be refused with 400 invalid_body naming `field`. */
function refusedPatch(name: string, body: unknown, field: string): ApiScenario<World> {
  return { name, method: "PATCH", url: itemUrl, key: admin, body, expectedStatus: 400, expectedBody: apiError("invalid_body", field) };
}

runScenarios<World>("GET /api/forms/{id}/submissions/{sid}", makeWorld, [
  {
    name: "answers the submission",
    method: "GET",
    url: itemUrl,
    key: admin,
    expectedStatus: 200,
    expectedBody: (w) => submissionObject(w.submission, ANN),
  },
  {
    name: "by the form's slug",
    method: "GET",
    url: (w) => `/api/forms/${w.form.slug}/submissions/${w.submission}`,
    key: admin,
    expectedStatus: 200,
    expectedBody: (w) => submissionObject(w.submission, ANN),
  },
  {
    name: "an unknown submission is 404 not_found",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions/sub_missing`,
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
  {
    name: "a submission of another form of the same account is 404 through this form",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions/${w.submission}`,
    key: admin,
    before: async (w) => {
      const second = await w.account.form({ name: "Second" });
      w.submission = await receive(w.t, second, { email: "x@example.com" });
    },
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
]);

runScenarios<World>("PATCH /api/forms/{id}/submissions/{sid}", makeWorld, [
  {
    name: "marks it read and answers the updated submission",
    method: "PATCH",
    url: itemUrl,
    key: admin,
    body: { isRead: true },
    expectedStatus: 200,
    expectedBody: (w) => submissionObject(w.submission, ANN, { isRead: true }),
    after: async (w, _response, body) => {
      expect((await getJson(w, itemUrl(w))).body).toEqual(body);
    },
  },
  {
    name: "sets several flags at once",
    method: "PATCH",
    url: itemUrl,
    key: admin,
    body: { isRead: true, isStarred: true, isSpam: true },
    expectedStatus: 200,
    expectedBody: (w) => submissionObject(w.submission, ANN, { isRead: true, isStarred: true, isSpam: true, spamReason: "owner" }),
  },
  {
    name: "clears a flag",
    method: "PATCH",
    url: itemUrl,
    key: admin,
    before: async (w) => {
      await w.t.request("PATCH", itemUrl(w), { key: w.admin, body: { isStarred: true } });
    },
    body: { isStarred: false },
    expectedStatus: 200,
    expectedBody: (w) => submissionObject(w.submission, ANN),
  },
  refusedPatch("a flag that is not a boolean", { isRead: "yes" }, "isRead"),
  refusedPatch("a null flag", { isSpam: null }, "isSpam"),
  refusedPatch("the data, which cannot be edited", { data: { email: "forged@example.com" } }, "data"),
  refusedPatch("an unknown field", { isArchived: true }, "isArchived"),
  {
    name: "a non-JSON body is 415",
    method: "PATCH",
    url: itemUrl,
    key: admin,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "isRead=true",
    expectedStatus: 415,
    expectedBody: apiError("unsupported_media_type"),
  },
  {
    name: "an unknown submission is 404 not_found",
    method: "PATCH",
    url: (w) => `/api/forms/${w.form.id}/submissions/sub_missing`,
    key: admin,
    body: { isRead: true },
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
]);

runScenarios<World>("DELETE /api/forms/{id}/submissions/{sid}", makeWorld, [
  {
    name: "answers 204 and the submission is gone",
    method: "DELETE",
    url: itemUrl,
    key: admin,
    expectedStatus: 204,
    expectedBody: "",
    after: async (w) => {
      expect(await getJson(w, itemUrl(w))).toEqual({ status: 404, body: apiError("not_found") });
      expect((await getJson(w, `/api/forms/${w.form.id}`)).body.submissionCount).toBe(0);
    },
  },
  {
    name: "a second delete is 404 not_found",
    method: "DELETE",
    url: itemUrl,
    key: admin,
    before: async (w) => {
      await w.t.request("DELETE", itemUrl(w), { key: w.admin });
    },
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
]);

/** The counters must agree with the rows: totals without since come from counters, with since from a count. */
async function expectCountsTrue(t: TestApp, key: string, formId: string, submissionCount: number): Promise<void> {
  const form = (await (await t.request("GET", `/api/forms/${formId}`, { key })).json()) as { submissionCount: number };
  expect(form.submissionCount).toBe(submissionCount);
  for (const filter of ["all", "unread", "starred", "spam"]) {
    const page = async (query: string) =>
      (await (await t.request("GET", `/api/forms/${formId}/submissions?limit=100&filter=${filter}${query}`, { key })).json()) as any;
    const kept = await page("");
    const counted = await page("&since=1970-01-01");
    expect({ filter, total: kept.pagination.total }).toEqual({ filter, total: counted.pagination.total });
    expect(kept.pagination.total).toBe(kept.submissions.length);
    if (filter === "all") expect(kept.pagination.total).toBe(submissionCount);
  }
}

describe("the form's counters and fields", () => {
  let t: TestApp;
  afterEach(() => t?.close());

  test("submissionCount and the filter totals stay true through posts, flag changes and deletes", async () => {
    t = await testApp();
    const account = await t.account();
    const key = await account.key();
    const form = await account.form();
    const post = async (data: Record<string, unknown>) => {
      const answer = await t.request("POST", `/api/f/${form.slug}`, { body: data, headers: { accept: "application/json" } });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { id: string }).id;
    };
    const patch = async (id: string, body: Record<string, boolean>) =>
      expect((await t.request("PATCH", `/api/forms/${form.id}/submissions/${id}`, { key, body })).status).toBe(200);
    const remove = async (id: string) => expect((await t.request("DELETE", `/api/forms/${form.id}/submissions/${id}`, { key })).status).toBe(204);

    const a = await post({ email: "a@example.com" });
    const b = await post({ email: "b@example.com", _gotcha: "bot" });
    const c = await post({ email: "c@example.com" });
    await expectCountsTrue(t, key, form.id, 2);
    await patch(a, { isRead: true, isStarred: true });
    await patch(a, { isRead: true }); // setting a flag to what it is must not count twice
    await expectCountsTrue(t, key, form.id, 2);
    await patch(c, { isSpam: true });
    await expectCountsTrue(t, key, form.id, 1);
    await patch(b, { isSpam: false, isStarred: true });
    await expectCountsTrue(t, key, form.id, 2);
    await remove(a);
    await expectCountsTrue(t, key, form.id, 1);
    await remove(c);
    await remove(b);
    await expectCountsTrue(t, key, form.id, 0);
  });

  test("fields lists every field name of the form's submissions in order of first appearance", async () => {
    t = await testApp();
    const account = await t.account();
    const key = await account.key();
    const form = await account.form();
    const fields = async () => ((await (await t.request("GET", `/api/forms/${form.id}/submissions`, { key })).json()) as { fields: string[] }).fields;

    const first = await receive(t, form, { email: "a@example.com", message: "Hi" });
    await receive(t, form, { name: "Bo", email: "b@example.com" });
    const phone = await receive(t, form, { phone: "555" });
    await receive(t, form, { website: "http://spam.example" }, true);
    expect(await fields()).toEqual(["email", "message", "name", "phone", "website"]);
    // Flags do not change which fields exist; a spam submission's fields are the form's fields too.
    await t.request("PATCH", `/api/forms/${form.id}/submissions/${first}`, { key, body: { isSpam: true } });
    expect(await fields()).toEqual(["email", "message", "name", "phone", "website"]);
    // A field that only a deleted submission had is no longer a field of the form's submissions.
    await t.request("DELETE", `/api/forms/${form.id}/submissions/${phone}`, { key });
    expect(await fields()).toEqual(["email", "message", "name", "website"]);
    await t.request("DELETE", `/api/forms/${form.id}/submissions/${first}`, { key });
    expect(await fields()).toEqual(["name", "email", "website"]);
  });
});
