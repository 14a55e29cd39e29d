import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import createClient from "openapi-fetch";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";
import type { paths } from "../generated/api-types.ts";
import { ROOT } from "../helpers/cli.ts";
import { checkResponse } from "../helpers/openapi.ts";

let t: TestApp;
let server: ReturnType<typeof Bun.serve>;
let key: string;

beforeAll(async () => {
  t = await testApp();
  key = await (await t.account("acme")).key();
  // A real socket: the generated client speaks HTTP to it, as an integrator's would.
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request, srv) => t.app.fetch(request, { ip: srv.requestIP(request)?.address }) });
});

afterAll(async () => {
  await server.stop(true);
  t.close();
});

test("GET /api/openapi.json needs no key and names this server", async () => {
  const response = await t.request("GET", "/api/openapi.json");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
  const document = await response.json();
  expect({ openapi: document.openapi, servers: document.servers, title: document.info.title }).toEqual({
    openapi: "3.1.0",
    servers: [{ url: BASE }],
    title: "formsvc API",
  });
  // The client types were generated from the copy in docs/: it is this document, but for the server's address.
  const committed = JSON.parse(readFileSync(join(ROOT, "docs", "openapi.json"), "utf8"));
  expect({ ...document, servers: [] }).toEqual({ ...committed, servers: [] });
});

test("/docs renders the reference from files the server carries: no other host is named", async () => {
  const page = await t.request("GET", "/docs");
  const html = await page.text();
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toStartWith("default-src 'self';");
  expect(html).toContain('<script src="/docs/swagger-ui-bundle.js"></script>');
  expect(html).toContain('href="/api/openapi.json"');
  expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  const script = await t.request("GET", "/docs/swagger-ui-bundle.js");
  expect([script.status, script.headers.get("content-type")]).toEqual([200, "text/javascript; charset=utf-8"]);
  expect((await script.text()).length).toBeGreaterThan(500_000);
  const init = await (await t.request("GET", "/docs/init.js")).text();
  expect(init).toContain('url: "/api/openapi.json"');
  // 1.7 MB is sent once: the next visit is answered 304 from the ETag.
  const cached = await t.request("GET", "/docs/swagger-ui-bundle.js", { headers: { "if-none-match": script.headers.get("etag") ?? "" } });
  expect(cached.status).toBe(304);
  const missing = await t.request("GET", "/docs/nothing.js");
  expect(missing.status).toBe(404);
});

test("a client generated from the document creates, lists and reads forms and submissions over a socket", async () => {
  const client = createClient<paths>({ baseUrl: server.url.origin, headers: { authorization: `Bearer ${key}` } });
  // What comes over the socket is checked against the document too.
  client.use({ onResponse: async ({ request, response }) => void (await checkResponse(request.method, request.url, response)) });

  const created = await client.POST("/api/forms", { body: { name: "Contact", notificationEmail: "owner@example.com" } });
  expect(created.response.status).toBe(201);
  const form = created.data!;
  expect(form).toMatchObject({ name: "Contact", notificationEmail: "owner@example.com", mode: "live", submissionCount: 0 });

  const listed = await client.GET("/api/forms");
  expect(listed.data!.forms.map((f) => f.id)).toEqual([form.id]);
  const read = await client.GET("/api/forms/{id}", { params: { path: { id: form.slug } } });
  expect(read.data!.id).toBe(form.id);

  const submitted = await client.POST("/api/f/{slug}", {
    params: { path: { slug: form.slug } },
    body: { email: "ann@example.com", message: "Hello" },
    headers: { accept: "application/json" },
  });
  expect(submitted.data).toEqual({ success: true, message: expect.any(String), id: expect.stringMatching(/^sub_/) });

  const page = await client.GET("/api/forms/{id}/submissions", { params: { path: { id: form.id }, query: { limit: 10, filter: "unread" } } });
  expect(page.data!.fields).toEqual(["email", "message"]);
  expect(page.data!.pagination).toEqual({ limit: 10, offset: 0, total: 1, hasMore: false, nextCursor: null });
  const [first] = page.data!.submissions;
  expect(first!.id).toBe(submitted.data!.id);

  const one = await client.GET("/api/forms/{id}/submissions/{submissionId}", { params: { path: { id: form.id, submissionId: first!.id } } });
  expect(one.data!.data).toEqual({ email: "ann@example.com", message: "Hello" });
  const marked = await client.PATCH("/api/forms/{id}/submissions/{submissionId}", {
    params: { path: { id: form.id, submissionId: first!.id } },
    body: { isRead: true, isStarred: true },
  });
  expect(marked.data).toMatchObject({ isRead: true, isStarred: true, isSpam: false });

  // Errors come back typed as the one error shape.
  const refused = await client.GET("/api/forms/{id}/submissions", { params: { path: { id: form.id }, query: { limit: 101 } } });
  expect([refused.response.status, refused.error?.error.code, refused.error?.error.field]).toEqual([400, "invalid_parameter", "limit"]);
  const anonymous = createClient<paths>({ baseUrl: server.url.origin });
  const unauthorized = await anonymous.GET("/api/forms");
  expect([unauthorized.response.status, unauthorized.error?.error.code]).toEqual([401, "unauthorized"]);
});
