import { expect, test } from "bun:test";
import { OPERATIONS } from "../../src/api/index.ts";
import { registeredRoutes } from "../helpers/app.ts";
import { generateKey } from "../../src/lib/keys.ts";
import { operator } from "../../src/services/principal.ts";
import { apiError, runScenarios } from "./scenario.ts";
import { protectedRoutes, runCommonRouteTests } from "./security.ts";
import { makeWorld, type World } from "./world.ts";

/** Every operation that takes a key, with the body its declaration shows as an example. */
const ROUTES = protectedRoutes(OPERATIONS);

/**
 * Routes that take no key, each with the reason. Every other route the app registers must be in ROUTES, so
 * that a route added anywhere (not only by a declaration of src/api) cannot escape the key checks.
 */
const PUBLIC_ROUTES: Record<string, string> = {
  "GET /": "the home page",
  "GET /healthz": "the health check for monitors and load balancers",
  "GET /metrics": "Prometheus metrics, only with --metrics (and kept from the public by the proxy, see docs/deploy.md)",
  "POST /api/f/:slug": "the public submission endpoint",
  "OPTIONS /api/f/:slug": "its CORS preflight",
  "POST /f/:slug": "the public submission endpoint",
  "OPTIONS /f/:slug": "its CORS preflight",
  "GET /f/:slug": "the form's page, or a page that says what the endpoint is",
  "GET /f/:slug/thanks": "the form's thank-you page",
  "GET /f/:slug/embed": "the form's markup for the embed, of a form whose page is public",
  "GET /embed.js": "the embed's script",
  "GET /form-page.js": "the form page's script",
  "GET /thanks": "the default thank-you page",
  "OPTIONS /thanks": "its CORS preflight (a page that holds nothing of any form)",
  "GET /confirm/:token": "the double opt-in link of a confirmation email: the signed token is its own credential",
  "GET /f/:slug/altcha": "a form's ALTCHA challenge",
  "GET /api/f/:slug/altcha": "a form's ALTCHA challenge",
  "GET /altcha.js": "the ALTCHA widget's script",
  "POST /stripe/webhook": "Stripe's events: each is verified by its Stripe-Signature, the shared secret's HMAC, instead of a key",
  "GET /api/openapi.json": "the OpenAPI document, which describes the API and holds nothing of anyone's",
  "GET /api/formsvc.schema.json": "the forms file's JSON Schema, which describes a file and holds nothing of anyone's",
  "POST /mcp":
    "MCP: it takes a key but checks it itself (401 without), and every tool call is a request to a route of this table under that key (test/process/mcp.test.ts)",
  "GET /docs": "the API reference page, rendered from that document",
  "GET /docs/:asset": "the reference page's script and stylesheet",
};

test("every route the app registers is in the security table or named public", async () => {
  const registered = await registeredRoutes();
  const protectedRoutes = ROUTES.map((r) => `${r.method} ${r.path}`);
  expect(registered.filter((r) => !(r in PUBLIC_ROUTES)).toSorted()).toEqual(protectedRoutes.toSorted());
  expect(Object.keys(PUBLIC_ROUTES).filter((r) => !registered.includes(r))).toEqual([]);
});

for (const route of ROUTES) runCommonRouteTests(route);

/** Cases that concern how a key is sent, or what collection routes show, rather than one route. */
runScenarios<World>("keys and scoping beyond single routes", makeWorld, [
  {
    name: "the Bearer scheme is case-insensitive, as HTTP says",
    method: "GET",
    url: "/api/forms",
    headers: (w) => ({ authorization: `bearer ${w.admin}` }),
    expectedStatus: 200,
  },
  {
    name: "a key in the query string is not a key: 401",
    method: "GET",
    url: (w) => `/api/forms?key=${w.admin}&api_key=${w.admin}`,
    expectedStatus: 401,
    expectedBody: apiError("unauthorized"),
    expectedHeaders: { "www-authenticate": /^Bearer\b/ },
  },
  {
    name: "a key in another header is not a key: 401",
    method: "GET",
    url: "/api/forms",
    headers: (w) => ({ "x-api-key": w.admin }),
    expectedStatus: 401,
    expectedBody: apiError("unauthorized"),
  },
  {
    name: "another account's key lists only its own forms",
    method: "GET",
    url: "/api/forms",
    key: (w) => w.other.admin,
    expectedStatus: 200,
    expectedContent: (w) => [w.other.form.id],
    notExpectedContent: (w) => [w.form.id, w.testForm.id],
  },
  {
    name: "another account's key lists only its own keys",
    method: "GET",
    url: "/api/keys",
    key: (w) => w.other.admin,
    before: async (w) => {
      await w.account.key({ type: "form", formId: w.form.id });
    },
    expectedStatus: 200,
    notExpectedContent: (w) => [w.admin.slice(0, 12), w.form.id],
  },
  {
    name: "an unknown key and a revoked one get the same answer: neither tells whether a key exists",
    method: "GET",
    url: "/api/forms",
    key: () => generateKey("live"),
    expectedStatus: 401,
    expectedBody: apiError("unauthorized"),
    after: async (w, _response, unknownAnswer) => {
      const revoked = await w.t.services.keys.create(operator(w.account.id, "live"), {});
      await w.t.services.keys.revoke(operator(w.account.id, "live"), revoked.id);
      const answer = await w.t.request("GET", "/api/forms", { key: revoked.key });
      expect(await answer.json()).toEqual(unknownAnswer);
    },
  },
  {
    name: "a key's secret never appears in the request log",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions`,
    key: (w) => w.admin,
    expectedStatus: 200,
    after: async (w) => {
      expect(w.t.logs.join("\n")).not.toContain(w.admin);
      expect(w.t.logs.some((line) => line.startsWith(`GET /api/forms/${w.form.id}/submissions 200`))).toBe(true);
    },
  },
]);
