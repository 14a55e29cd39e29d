import { expect, test } from "bun:test";
import { testApp } from "../helpers/app.ts";
import { operator } from "../../src/services/principal.ts";
import { apiError, isoTime, runScenarios, type ApiScenario } from "./scenario.ts";
import { getJson, makeWorld, type World } from "./world.ts";

const admin = (w: World) => w.admin;
const EVERY = ["read", "write", "delete", "admin"];

/** A key as POST /api/keys answers it: the only time the secret is shown. */
const newKey = (overrides: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(/^key_/),
  key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{32,}$/),
  type: "live",
  permissions: EVERY,
  formId: null,
  name: null,
  createdAt: isoTime(),
  ...overrides,
});

/** A key as lists show it: a display prefix, never the secret or its hash. */
const listedKey = (overrides: Record<string, unknown> = {}) => ({
  id: expect.stringMatching(/^key_/),
  type: "live",
  name: null,
  prefix: expect.stringMatching(/^sk_live_[0-9A-Za-z]{4}…$/),
  permissions: EVERY,
  formId: null,
  mode: "live",
  createdAt: isoTime(),
  revokedAt: null,
  lastUsedAt: null,
  ...overrides,
});

/** A create call that must be refused with `status` and `code`, naming `field`. */
function refusedCreate(name: string, body: unknown, status: number, code: string, field?: string): ApiScenario<World> {
  return { name, method: "POST", url: "/api/keys", key: admin, body, expectedStatus: status, expectedBody: apiError(code, field) };
}

runScenarios<World>("POST /api/keys", makeWorld, [
  {
    name: "a live admin key makes a live key with every permission by default, shown once, not cached",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: {},
    expectedStatus: 201,
    expectedBody: newKey(),
    expectedHeaders: { "cache-control": "no-store" },
    after: async (w, _response, body: any) => {
      expect((await getJson(w, "/api/forms", body.key)).status).toBe(200);
      const listed = (await getJson(w, "/api/keys")).body.keys;
      expect(JSON.stringify(listed)).not.toContain(body.key);
    },
  },
  {
    name: "a named read-only key can read but not write",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: { name: "  dashboard  ", permissions: ["read"] },
    expectedStatus: 201,
    expectedBody: newKey({ name: "dashboard", permissions: ["read"] }),
    after: async (w, _response, body: any) => {
      expect((await getJson(w, `/api/forms/${w.form.id}`, body.key)).status).toBe(200);
      const write = await w.t.request("POST", "/api/forms", { key: body.key, body: { name: "Nope" } });
      expect(await write.json()).toEqual(apiError("forbidden"));
    },
  },
  {
    name: "a test key makes test keys",
    method: "POST",
    url: "/api/keys",
    key: (w) => w.testAdmin,
    body: { permissions: ["read", "write"] },
    expectedStatus: 201,
    expectedBody: newKey({ type: "test", key: expect.stringMatching(/^sk_test_/), permissions: ["read", "write"] }),
  },
  {
    name: "a form-level key for a form given by slug: fk_, bound to the form, read by default",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: (w) => ({ type: "form", formId: w.form.slug }),
    expectedStatus: 201,
    expectedBody: (w) => newKey({ type: "form", key: expect.stringMatching(/^fk_[0-9A-Za-z]{32,}$/), permissions: ["read"], formId: w.form.id }),
    after: async (w, _response, body: any) => {
      expect((await getJson(w, `/api/forms/${w.form.id}/submissions`, body.key)).body.pagination.total).toBe(1);
    },
  },
  {
    name: "a form-level key with write may flag its form's submissions",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: (w) => ({ type: "form", formId: w.form.id, permissions: ["read", "write"] }),
    expectedStatus: 201,
    expectedBody: (w) => newKey({ type: "form", key: expect.stringMatching(/^fk_/), permissions: ["read", "write"], formId: w.form.id }),
    after: async (w, _response, body: any) => {
      const flagged = await w.t.request("PATCH", `/api/forms/${w.form.id}/submissions/${w.submission}`, { key: body.key, body: { isStarred: true } });
      expect(flagged.status).toBe(200);
    },
  },
  refusedCreate("a live key cannot make a test key", { type: "test" }, 403, "forbidden", "type"),
  {
    name: "a test key cannot make a live key",
    method: "POST",
    url: "/api/keys",
    key: (w) => w.testAdmin,
    body: { type: "live" },
    expectedStatus: 403,
    expectedBody: apiError("forbidden", "type"),
  },
  {
    name: "a form-level key for a test form, asked with a live key, is 404",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: (w) => ({ type: "form", formId: w.testForm.id }),
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
  {
    name: "a form-level key for another account's form is 404",
    method: "POST",
    url: "/api/keys",
    key: admin,
    body: (w) => ({ type: "form", formId: w.other.form.id }),
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
  refusedCreate("a form-level key needs its form", { type: "form" }, 400, "invalid_body", "formId"),
  refusedCreate("formId goes only with type form", { type: "live", formId: "frm_x" }, 400, "invalid_body", "formId"),
  refusedCreate("an unknown type", { type: "root" }, 400, "invalid_body", "type"),
  refusedCreate("an unknown permission", { permissions: ["read", "billing"] }, 400, "invalid_body", "permissions"),
  refusedCreate("no permissions at all", { permissions: [] }, 400, "invalid_body", "permissions"),
  refusedCreate("an unknown field", { expiresAt: "2030-01-01" }, 400, "invalid_body", "expiresAt"),
  refusedCreate("a name of 201 characters", { name: "k".repeat(201) }, 400, "invalid_body", "name"),
  {
    name: "a non-JSON body is 415",
    method: "POST",
    url: "/api/keys",
    key: admin,
    headers: { "content-type": "text/plain" },
    body: "type=live",
    expectedStatus: 415,
    expectedBody: apiError("unsupported_media_type"),
  },
]);

runScenarios<World>("GET /api/keys", makeWorld, [
  {
    name: "lists the account's keys of the key's mode, newest first, without secrets, with when each was last used",
    method: "GET",
    url: "/api/keys",
    key: admin,
    before: async (w) => {
      await w.account.key({ permissions: ["read"] });
    },
    expectedStatus: 200,
    expectedBody: { keys: [listedKey({ permissions: ["read"] }), listedKey({ lastUsedAt: isoTime() })] },
    notExpectedContent: (w) => [w.admin, "hash"],
  },
  {
    name: "a test key lists only test keys",
    method: "GET",
    url: "/api/keys",
    key: (w) => w.testAdmin,
    expectedStatus: 200,
    expectedBody: { keys: [listedKey({ type: "test", mode: "test", prefix: expect.stringMatching(/^sk_test_/), lastUsedAt: isoTime() })] },
  },
]);

runScenarios<World>("DELETE /api/keys/{keyId}", makeWorld, [
  {
    name: "revokes the key: 204, it stops working at once, and the list shows when",
    method: "DELETE",
    url: (w) => `/api/keys/${(w as World & { doomedId: string }).doomedId}`,
    key: admin,
    before: async (w) => {
      const doomed = await w.t.services.keys.create(operator(w.account.id, "live"), { name: "doomed" });
      Object.assign(w, { doomedId: doomed.id, doomedKey: doomed.key });
      expect((await getJson(w, "/api/forms", doomed.key)).status).toBe(200);
    },
    expectedStatus: 204,
    expectedBody: "",
    after: async (w) => {
      const { doomedId, doomedKey } = w as World & { doomedId: string; doomedKey: string };
      expect(await getJson(w, "/api/forms", doomedKey)).toEqual({ status: 401, body: apiError("unauthorized") });
      const listed = (await getJson(w, "/api/keys")).body.keys;
      expect(listed[0]).toEqual(listedKey({ id: doomedId, name: "doomed", revokedAt: isoTime(), lastUsedAt: isoTime() }));
      // Revoking twice changes nothing.
      expect((await w.t.request("DELETE", `/api/keys/${doomedId}`, { key: w.admin })).status).toBe(204);
    },
  },
  {
    name: "an unknown key id is 404 not_found",
    method: "DELETE",
    url: "/api/keys/key_nothing",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
]);

test("a key can only grant permissions it has itself, whoever asks (API and CLI share the service)", async () => {
  const t = await testApp();
  try {
    const account = await t.account();
    const reader = { ...operator(account.id, "live"), permissions: new Set(["read", "write"] as const) };
    await expect(t.services.keys.create(reader, { permissions: ["read"] })).resolves.toMatchObject({ permissions: ["read"] });
    await expect(t.services.keys.create(reader, { permissions: ["read", "delete"] })).rejects.toMatchObject({ code: "forbidden", field: "permissions" });
    // With no permissions named, a live key would get all four: more than this principal holds.
    await expect(t.services.keys.create(reader, {})).rejects.toMatchObject({ code: "forbidden", field: "permissions" });
  } finally {
    t.close();
  }
});
