import { expect } from "bun:test";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { formObject, getJson, makeWorld, receive, type World } from "./world.ts";
import { count, eq } from "drizzle-orm";
import { submissions } from "../../src/db/schema.ts";

const admin = (w: World) => w.admin;
const formUrl = (w: World) => `/api/forms/${w.form.id}`;
/** The fixture form as the API shows it, with `overrides`. */
const theForm =
  (overrides: Record<string, unknown> = {}) =>
  (w: World) =>
    formObject({ id: w.form.id, slug: w.form.slug, submissionCount: 1, ...overrides });

/** A patch that must be refused with 400 invalid_body naming `field`, leaving the form as it was. */
function refusedPatch(name: string, body: unknown, field: string): ApiScenario<World> {
  return {
    name,
    method: "PATCH",
    url: formUrl,
    key: admin,
    body,
    expectedStatus: 400,
    expectedBody: apiError("invalid_body", field),
    after: async (w) => {
      expect((await getJson(w, formUrl(w))).body).toEqual(theForm()(w));
    },
  };
}

runScenarios<World>("PATCH /api/forms/{id}", makeWorld, [
  {
    name: "renames the form and answers with the whole updated form",
    method: "PATCH",
    url: formUrl,
    key: admin,
    body: { name: "  Support  " },
    expectedStatus: 200,
    expectedBody: theForm({ name: "Support" }),
    after: async (w, _response, body) => {
      expect((await getJson(w, formUrl(w))).body).toEqual(body);
    },
  },
  {
    name: "turns the form off with isActive false, by slug",
    method: "PATCH",
    url: (w) => `/api/forms/${w.form.slug}`,
    key: admin,
    body: { isActive: false },
    expectedStatus: 200,
    expectedBody: theForm({ isActive: false }),
  },
  {
    name: "sets every optional field at once, lowercasing domains",
    method: "PATCH",
    url: formUrl,
    key: admin,
    body: { slug: "support-desk", notificationEmail: "help@example.com", redirectUrl: "http://example.com/ok", allowedDomains: ["WWW.Example.com"] },
    expectedStatus: 200,
    expectedBody: theForm({
      slug: "support-desk",
      notificationEmail: "help@example.com",
      redirectUrl: "http://example.com/ok",
      allowedDomains: ["www.example.com"],
    }),
    after: async (w) => {
      expect((await getJson(w, "/api/forms/support-desk")).status).toBe(200);
      expect((await getJson(w, `/api/forms/${w.form.slug}`)).status).toBe(404);
    },
  },
  {
    name: "null clears the optional fields",
    method: "PATCH",
    url: formUrl,
    key: admin,
    before: async (w) => {
      const patched = await w.t.request("PATCH", formUrl(w), {
        key: w.admin,
        body: { notificationEmail: "a@example.com", redirectUrl: "https://example.com/", allowedDomains: ["example.com"] },
      });
      expect(patched.status).toBe(200);
    },
    body: { notificationEmail: null, redirectUrl: null, allowedDomains: null },
    expectedStatus: 200,
    expectedBody: theForm(),
  },
  {
    name: "an empty patch changes nothing but answers with the form",
    method: "PATCH",
    url: formUrl,
    key: admin,
    body: {},
    expectedStatus: 200,
    expectedBody: theForm(),
  },
  {
    name: "keeping the form's own slug is no clash",
    method: "PATCH",
    url: formUrl,
    key: admin,
    body: (w) => ({ slug: w.form.slug }),
    expectedStatus: 200,
    expectedBody: theForm(),
  },
  {
    name: "another form's slug is 409 slug_taken",
    method: "PATCH",
    url: formUrl,
    key: admin,
    body: (w) => ({ slug: w.other.form.slug }),
    expectedStatus: 409,
    expectedBody: apiError("slug_taken", "slug"),
  },
  refusedPatch("a blank name", { name: " " }, "name"),
  refusedPatch("a name of 201 characters", { name: "x".repeat(201) }, "name"),
  refusedPatch("a null name: name cannot be cleared", { name: null }, "name"),
  refusedPatch("isActive that is not a boolean", { isActive: "no" }, "isActive"),
  refusedPatch("an unknown field", { title: "Support" }, "title"),
  refusedPatch("the id, which never changes", { id: "frm_mine" }, "id"),
  refusedPatch("a bad email", { notificationEmail: "nobody" }, "notificationEmail"),
  refusedPatch("a redirectUrl without a scheme", { redirectUrl: "example.com/thanks" }, "redirectUrl"),
  refusedPatch("a bad allowedDomains entry", { allowedDomains: ["exa mple.com"] }, "allowedDomains.0"),
  refusedPatch("a bad slug", { slug: "Has Spaces" }, "slug"),
  {
    name: "a non-JSON body is 415",
    method: "PATCH",
    url: formUrl,
    key: admin,
    headers: { "content-type": "text/plain" },
    body: "name=Support",
    expectedStatus: 415,
    expectedBody: apiError("unsupported_media_type"),
  },
  {
    name: "broken JSON is 400 invalid_json",
    method: "PATCH",
    url: formUrl,
    key: admin,
    headers: { "content-type": "application/json" },
    body: "{name: 'Support'}",
    expectedStatus: 400,
    expectedBody: apiError("invalid_json"),
  },
  {
    name: "an unknown form is 404 form_not_found",
    method: "PATCH",
    url: "/api/forms/nosuchform",
    key: admin,
    body: { name: "Support" },
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
]);

runScenarios<World>("DELETE /api/forms/{id}", makeWorld, [
  {
    name: "answers 204 with no body, and the form and its submissions are gone",
    method: "DELETE",
    url: formUrl,
    key: admin,
    before: async (w) => {
      await receive(w.t, w.form, { email: "bob@example.com" });
    },
    expectedStatus: 204,
    expectedBody: "",
    after: async (w) => {
      expect((await getJson(w, formUrl(w))).body).toEqual(apiError("form_not_found"));
      expect((await getJson(w, `${formUrl(w)}/submissions`)).status).toBe(404);
      expect((await getJson(w, `${formUrl(w)}/submissions/${w.submission}`)).status).toBe(404);
      // Nothing of the form is left behind in storage either.
      const left = await w.t.services.store.db.select({ n: count() }).from(submissions).where(eq(submissions.formId, w.form.id));
      expect(left).toEqual([{ n: 0 }]);
      expect((await getJson(w, "/api/forms")).body).toEqual({ forms: [] });
    },
  },
  {
    name: "a form-level key of the deleted form stops working",
    method: "DELETE",
    url: (w) => `/api/forms/${w.form.slug}`,
    key: admin,
    before: async (w) => {
      const formKey = await w.account.key({ type: "form", formId: w.form.id });
      expect((await getJson(w, `${formUrl(w)}/submissions`, formKey)).status).toBe(200);
      (w as World & { formKey: string }).formKey = formKey;
    },
    expectedStatus: 204,
    after: async (w) => {
      const formKey = (w as World & { formKey: string }).formKey;
      const refused = await w.t.request("GET", `${formUrl(w)}/submissions`, { key: formKey });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual(apiError("unauthorized"));
    },
  },
  {
    name: "the slug is free again after the delete",
    method: "POST",
    url: "/api/forms",
    key: admin,
    before: async (w) => {
      expect((await w.t.request("DELETE", formUrl(w), { key: w.admin })).status).toBe(204);
    },
    body: (w) => ({ name: "Contact again", slug: w.form.slug }),
    expectedStatus: 201,
    expectedBody: (w) => formObject({ name: "Contact again", slug: w.form.slug }),
  },
  {
    name: "other forms and their submissions stay",
    method: "DELETE",
    url: formUrl,
    key: admin,
    expectedStatus: 204,
    after: async (w) => {
      const theirs = await getJson(w, `/api/forms/${w.other.form.id}/submissions`, w.other.admin);
      expect(theirs.body.pagination.total).toBe(1);
      const staging = await getJson(w, `/api/forms/${w.testForm.id}`, w.testAdmin);
      expect(staging.body.submissionCount).toBe(1);
    },
  },
  {
    name: "an unknown form is 404 form_not_found",
    method: "DELETE",
    url: "/api/forms/frm_unknown",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
  {
    name: "a second delete of the same form is 404",
    method: "DELETE",
    url: formUrl,
    key: admin,
    before: async (w) => {
      expect((await w.t.request("DELETE", formUrl(w), { key: w.admin })).status).toBe(204);
    },
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
]);
