import { expect } from "bun:test";
import { BASE } from "../helpers/app.ts";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { formObject, getJson, makeWorld, type World } from "./world.ts";

const admin = (w: World) => w.admin;
const NAME_201 = "x".repeat(201);

/** A create call that must be refused with 400 invalid_body naming `field`. */
function refusedCreate(name: string, body: unknown, field: string): ApiScenario<World> {
  return { name, method: "POST", url: "/api/forms", key: admin, body, expectedStatus: 400, expectedBody: apiError("invalid_body", field) };
}

runScenarios<World>("GET /api/forms", makeWorld, [
  {
    name: "lists the key's own live forms, newest first, with every field of the form object",
    method: "GET",
    url: "/api/forms",
    key: admin,
    before: async (w) => {
      await w.account.form({ name: "Newsletter", slug: "newsletter" });
    },
    expectedStatus: 200,
    expectedBody: (w) => ({
      forms: [formObject({ name: "Newsletter", slug: "newsletter" }), formObject({ id: w.form.id, slug: w.form.slug, submissionCount: 1 })],
    }),
    notExpectedContent: (w) => [w.testForm.id, w.other.form.id],
  },
  {
    name: "a test key lists only the test forms",
    method: "GET",
    url: "/api/forms",
    key: (w) => w.testAdmin,
    expectedStatus: 200,
    expectedBody: (w) => ({ forms: [formObject({ id: w.testForm.id, slug: w.testForm.slug, name: "Staging contact", mode: "test", submissionCount: 1 })] }),
  },
  {
    name: "an account without forms gets an empty list",
    method: "GET",
    url: "/api/forms",
    key: admin,
    before: async (w) => {
      w.admin = await (await w.t.account("empty")).key();
    },
    expectedStatus: 200,
    expectedBody: { forms: [] },
  },
]);

runScenarios<World>("GET /api/forms/{id}", makeWorld, [
  {
    name: "by id",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}`,
    key: admin,
    expectedStatus: 200,
    expectedBody: (w) => formObject({ id: w.form.id, slug: w.form.slug, submissionCount: 1 }),
  },
  {
    name: "by slug",
    method: "GET",
    url: (w) => `/api/forms/${w.form.slug}`,
    key: admin,
    expectedStatus: 200,
    expectedBody: (w) => formObject({ id: w.form.id, slug: w.form.slug, submissionCount: 1 }),
  },
  {
    name: "an unknown id is 404 form_not_found",
    method: "GET",
    url: "/api/forms/frm_doesnotexist",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
]);

runScenarios<World>("POST /api/forms", makeWorld, [
  {
    name: "creates a live form from a name alone: 201, the whole form, and its Location",
    method: "POST",
    url: "/api/forms",
    key: admin,
    body: { name: "Contact" },
    expectedStatus: 201,
    expectedBody: formObject(),
    after: async (w, response, body: any) => {
      expect(response.headers.get("location")).toBe(`${BASE}/api/forms/${body.id}`);
      expect(body.createdAt).toBe(body.updatedAt);
      expect(await getJson(w, `/api/forms/${body.id}`)).toEqual({ status: 200, body });
    },
  },
  {
    name: "keeps every optional field, trims the name and lowercases allowed domains",
    method: "POST",
    url: "/api/forms",
    key: admin,
    body: {
      name: "  Quote request  ",
      slug: "quote-request",
      notificationEmail: "sales@example.com",
      redirectUrl: "https://example.com/thanks?from=form",
      allowedDomains: ["Example.com", "*.Example.org", "localhost:3000"],
    },
    expectedStatus: 201,
    expectedBody: formObject({
      name: "Quote request",
      slug: "quote-request",
      notificationEmail: "sales@example.com",
      redirectUrl: "https://example.com/thanks?from=form",
      allowedDomains: ["example.com", "*.example.org", "localhost:3000"],
    }),
  },
  {
    name: "a test key makes a test form",
    method: "POST",
    url: "/api/forms",
    key: (w) => w.testAdmin,
    body: { name: "Contact" },
    expectedStatus: 201,
    expectedBody: formObject({ mode: "test" }),
  },
  {
    name: "a name of 200 characters after trimming is accepted",
    method: "POST",
    url: "/api/forms",
    key: admin,
    body: { name: `  ${"n".repeat(200)}  ` },
    expectedStatus: 201,
    expectedBody: formObject({ name: "n".repeat(200) }),
  },
  refusedCreate("a missing name", {}, "name"),
  refusedCreate("a name of blanks only", { name: "   " }, "name"),
  refusedCreate("a name of 201 characters", { name: NAME_201 }, "name"),
  refusedCreate("a name that is not a string", { name: 42 }, "name"),
  refusedCreate("an unknown field, named", { name: "Contact", colour: "blue" }, "colour"),
  refusedCreate("a read-only field", { name: "Contact", submissionCount: 5 }, "submissionCount"),
  refusedCreate("a notificationEmail that is not an address", { name: "Contact", notificationEmail: "sales at example" }, "notificationEmail"),
  refusedCreate("a redirectUrl on another scheme", { name: "Contact", redirectUrl: "javascript:alert(1)" }, "redirectUrl"),
  refusedCreate("a relative redirectUrl", { name: "Contact", redirectUrl: "/thanks" }, "redirectUrl"),
  refusedCreate("an ftp redirectUrl", { name: "Contact", redirectUrl: "ftp://example.com/thanks" }, "redirectUrl"),
  refusedCreate("allowedDomains that is not an array", { name: "Contact", allowedDomains: "example.com" }, "allowedDomains"),
  refusedCreate("an allowedDomains entry with a scheme", { name: "Contact", allowedDomains: ["example.com", "https://example.org"] }, "allowedDomains.1"),
  refusedCreate("an allowedDomains entry with a path", { name: "Contact", allowedDomains: ["example.com/contact"] }, "allowedDomains.0"),
  refusedCreate("an allowedDomains entry with a port no host can have", { name: "Contact", allowedDomains: ["localhost:70000"] }, "allowedDomains.0"),
  refusedCreate("an allowedDomains entry that is not a string", { name: "Contact", allowedDomains: [7] }, "allowedDomains.0"),
  refusedCreate("a slug with capitals", { name: "Contact", slug: "Contact" }, "slug"),
  refusedCreate("a slug of two characters", { name: "Contact", slug: "ab" }, "slug"),
  refusedCreate("a slug starting with a dash", { name: "Contact", slug: "-contact" }, "slug"),
  refusedCreate("a slug of 65 characters", { name: "Contact", slug: "s".repeat(65) }, "slug"),
  refusedCreate("a body that is an array", [{ name: "Contact" }], ""),
  {
    name: "a slug in use by the account is 409 slug_taken",
    method: "POST",
    url: "/api/forms",
    key: admin,
    body: { name: "Contact", slug: "contact" },
    before: async (w) => {
      await w.account.form({ name: "First", slug: "contact" });
    },
    expectedStatus: 409,
    expectedBody: apiError("slug_taken", "slug"),
  },
  {
    name: "a slug in use by another account is 409 too: slugs are one public namespace",
    method: "POST",
    url: "/api/forms",
    key: admin,
    body: (w) => ({ name: "Contact", slug: w.other.form.slug }),
    expectedStatus: 409,
    expectedBody: apiError("slug_taken", "slug"),
  },
  {
    name: "a body that is not JSON is 400 invalid_json",
    method: "POST",
    url: "/api/forms",
    key: admin,
    headers: { "content-type": "application/json" },
    body: '{"name": "Contact"',
    expectedStatus: 400,
    expectedBody: apiError("invalid_json"),
  },
  {
    name: "a urlencoded body is 415 unsupported_media_type",
    method: "POST",
    url: "/api/forms",
    key: admin,
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "name=Contact",
    expectedStatus: 415,
    expectedBody: apiError("unsupported_media_type"),
  },
  {
    name: "a JSON body without its Content-Type is 415",
    method: "POST",
    url: "/api/forms",
    key: admin,
    headers: { "content-type": "text/plain" },
    body: '{"name":"Contact"}',
    expectedStatus: 415,
    expectedBody: apiError("unsupported_media_type"),
  },
  {
    name: "a JSON Content-Type with a charset is fine",
    method: "POST",
    url: "/api/forms",
    key: admin,
    headers: { "content-type": "application/json; charset=utf-8" },
    body: '{"name":"Contact"}',
    expectedStatus: 201,
    expectedBody: formObject(),
  },
]);
