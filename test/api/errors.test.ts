import { expect, test } from "bun:test";
import { testApp } from "../helpers/app.ts";
import { apiError, runScenarios, type ApiScenario } from "./scenario.ts";
import { makeWorld, type World } from "./world.ts";

const admin = (w: World) => w.admin;
const JSON_TYPE = "application/json; charset=utf-8";

/** A method the path does not take: 405 with the methods it does take, before any key is looked at. */
function notAllowed(method: string, label: string, allow: string): ApiScenario<World> {
  return {
    name: `${method} ${label} is 405, Allow: ${allow}`,
    method,
    url: (w) => label.replace("{id}", w.form.id).replace("{sid}", w.submission),
    key: admin,
    expectedStatus: 405,
    expectedBody: apiError("method_not_allowed"),
    expectedHeaders: { allow, "content-type": JSON_TYPE },
  };
}

runScenarios<World>("routing errors", makeWorld, [
  {
    name: "an unknown API path is 404 not_found in the JSON error shape",
    method: "GET",
    url: "/api/nothing-here",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
    expectedHeaders: { "content-type": JSON_TYPE },
  },
  {
    name: "a path below a submission is 404",
    method: "GET",
    url: (w) => `/api/forms/${w.form.id}/submissions/${w.submission}/attachments`,
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
  {
    name: "a trailing slash reaches the same route",
    method: "GET",
    url: "/api/forms/",
    key: admin,
    expectedStatus: 200,
    expectedContent: ['"forms":['],
  },
  {
    name: "a path segment that is not valid percent-encoding is 404, not 500",
    method: "GET",
    url: "/api/forms/%E0%A4%A",
    key: admin,
    expectedStatus: 404,
    expectedBody: apiError("not_found"),
  },
  notAllowed("PUT", "/api/forms", "GET, POST, HEAD"),
  notAllowed("DELETE", "/api/forms", "GET, POST, HEAD"),
  notAllowed("PUT", "/api/forms/{id}", "GET, PATCH, DELETE, HEAD"),
  notAllowed("POST", "/api/forms/{id}/submissions", "GET, HEAD"),
  notAllowed("DELETE", "/api/forms/{id}/submissions", "GET, HEAD"),
  notAllowed("POST", "/api/forms/{id}/submissions/{sid}", "GET, PATCH, DELETE, HEAD"),
  notAllowed("PATCH", "/api/keys", "GET, POST, HEAD"),
  notAllowed("GET", "/api/keys/key_123", "DELETE"),
  {
    name: "405 is answered without a key too: the route's methods are no secret",
    method: "PUT",
    url: "/api/forms",
    expectedStatus: 405,
    expectedBody: apiError("method_not_allowed"),
    expectedHeaders: { allow: "GET, POST, HEAD" },
  },
]);

/** The bodies every management route that takes one must refuse, and how. */
function bodyErrors(method: string, label: string, url: (w: World) => string): ApiScenario<World>[] {
  const at = { method, url, key: admin };
  const json = { "content-type": "application/json" };
  return [
    { ...at, name: `${method} ${label}: no Content-Type is 415`, body: "{}", expectedStatus: 415, expectedBody: apiError("unsupported_media_type") },
    { ...at, name: `${method} ${label}: a multipart body is 415`, body: new FormData(), expectedStatus: 415, expectedBody: apiError("unsupported_media_type") },
    {
      ...at,
      name: `${method} ${label}: a JSON string, not an object, is invalid_body`,
      headers: json,
      body: '"name"',
      expectedStatus: 400,
      expectedBody: apiError("invalid_body"),
    },
    { ...at, name: `${method} ${label}: an empty body is invalid_json`, headers: json, body: "", expectedStatus: 400, expectedBody: apiError("invalid_json") },
  ];
}

runScenarios<World>("body errors on every management body", makeWorld, [
  ...bodyErrors("POST", "/api/forms", () => "/api/forms"),
  ...bodyErrors("PATCH", "/api/forms/{id}", (w) => `/api/forms/${w.form.id}`),
  ...bodyErrors("PATCH", "/api/forms/{id}/submissions/{sid}", (w) => `/api/forms/${w.form.id}/submissions/${w.submission}`),
  ...bodyErrors("POST", "/api/keys", () => "/api/keys"),
]);

test("an unexpected failure is a bare 500 internal_error: the stack goes to the log, never to the client", async () => {
  const t = await testApp();
  try {
    const key = await (await t.account()).key();
    t.services.forms.list = async () => {
      throw new Error("SQLITE_CORRUPT: SELECT * FROM forms WHERE account_id = 'acc_secret'");
    };
    const answer = await t.request("GET", "/api/forms", { key });
    const text = await answer.text();
    // The request id is the one thing the answer tells beyond the code: the header's, and the log line's.
    const requestId = answer.headers.get("x-request-id")!;
    expect(requestId).toMatch(/^req_[0-9a-z]{22}$/);
    const expected = apiError("internal_error");
    expect({ status: answer.status, body: JSON.parse(text) }).toEqual({ status: 500, body: { error: { ...expected.error, requestId } } });
    expect(text).not.toContain("SELECT");
    expect(text).not.toContain("acc_secret");
    expect(t.logs.filter((line) => line.includes("SQLITE_CORRUPT"))).toEqual([expect.stringContaining(`(request ${requestId})`)]);
  } finally {
    t.close();
  }
});

test("a management body over the size limit is 413 payload_too_large", async () => {
  const t = await testApp({ maxBody: 1024 });
  try {
    const key = await (await t.account()).key();
    const answer = await t.request("POST", "/api/forms", { key, body: { name: "Contact", notificationEmail: `${"a".repeat(2000)}@example.com` } });
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 413, body: apiError("payload_too_large") });
    expect((await (await t.request("GET", "/api/forms", { key })).json()) as unknown).toEqual({ forms: [] });
  } finally {
    t.close();
  }
});
