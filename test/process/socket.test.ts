import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { chunked, type StoredSubmission } from "../api/public-support.ts";

// The real `formsvc serve` process, spoken to over a socket the way browsers and fetch() do.
const MAX_BODY = 4096;
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  server = await startServerProcess({ args: ["--max-body", String(MAX_BODY)] });
  const minted = await runCli(["keys", "create", "--db", server.db]);
  expect(minted.code).toBe(0);
  key = minted.stdout.trim();
});
afterAll(async () => {
  await server.stop();
  rmSync(server.dir, { recursive: true, force: true });
});

async function createForm(body: Record<string, unknown> = {}): Promise<{ id: string; slug: string; submitUrl: string }> {
  const answer = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Contact", ...body }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; slug: string; submitUrl: string };
}

async function stored(formId: string): Promise<StoredSubmission[]> {
  const answer = await fetch(`${server.url}/api/forms/${formId}/submissions?order=asc`, { headers: { authorization: `Bearer ${key}` } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { submissions: StoredSubmission[] }).submissions;
}

describe("a browser-style form post over a socket", () => {
  test("urlencoded: 303 to the thank-you page, which is HTML", async () => {
    const form = await createForm();
    expect(form.submitUrl).toBe(`${server.url}/f/${form.slug}`);
    const body = new URLSearchParams([
      ["name", "Ann"],
      ["topic", "a"],
      ["topic", "b"],
      ["_gotcha", ""],
    ]);
    const manual = await fetch(form.submitUrl, { method: "POST", body, redirect: "manual" });
    expect({ status: manual.status, location: manual.headers.get("location") }).toEqual({ status: 303, location: `${server.url}/thanks` });
    const followed = await fetch(form.submitUrl, { method: "POST", body, redirect: "follow" });
    expect({ status: followed.status, url: followed.url, type: followed.headers.get("content-type") }).toEqual({
      status: 200,
      url: `${server.url}/thanks`,
      type: "text/html; charset=utf-8",
    });
    expect(await followed.text()).toContain("Thank you");
    expect((await stored(form.id)).map((s) => s.data)).toEqual([
      { name: "Ann", topic: ["a", "b"] },
      { name: "Ann", topic: ["a", "b"] },
    ]);
  });

  test("multipart (a FormData body) follows the 303 to the thank-you page", async () => {
    const form = await createForm();
    const body = new FormData();
    body.append("email", "ann@example.com");
    body.append("message", "Hello,\r\nworld");
    const followed = await fetch(`${server.url}/api/f/${form.slug}`, { method: "POST", body });
    expect({ status: followed.status, url: followed.url }).toEqual({ status: 200, url: `${server.url}/thanks` });
    expect(await followed.text()).toContain("Thank you");
    expect((await stored(form.id)).map((s) => s.data)).toEqual([{ email: "ann@example.com", message: "Hello,\r\nworld" }]);
  });

  test("a form's redirectUrl is where the browser goes", async () => {
    const form = await createForm({ redirectUrl: `${server.url}/thanks?from=form` });
    const followed = await fetch(form.submitUrl, { method: "POST", body: new URLSearchParams({ name: "Ann" }) });
    expect({ status: followed.status, url: followed.url }).toEqual({ status: 200, url: `${server.url}/thanks?from=form` });
  });
});

describe("fetch() from a static site, with its CORS preflight", () => {
  const preflight = (url: string, origin: string) =>
    fetch(url, { method: "OPTIONS", headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type,accept" } });
  const postJson = (url: string, origin: string) =>
    fetch(url, { method: "POST", headers: { origin, accept: "application/json", "content-type": "application/json" }, body: JSON.stringify({ name: "Ann" }) });

  test("from an allowed origin: the preflight admits it and the post answers JSON it can read", async () => {
    const form = await createForm({ allowedDomains: ["*.example.com"] });
    const origin = "https://www.example.com";
    const checked = await preflight(form.submitUrl, origin);
    expect(checked.status).toBeOneOf([200, 204]);
    expect(checked.headers.get("access-control-allow-origin")).toBe(origin);
    expect(checked.headers.get("access-control-allow-methods")).toContain("POST");
    const posted = await postJson(form.submitUrl, origin);
    expect(posted.headers.get("access-control-allow-origin")).toBe(origin);
    const body = (await posted.json()) as Record<string, unknown>;
    expect({ status: posted.status, body }).toEqual({ status: 200, body: { success: true, message: expect.any(String), id: expect.stringMatching(/^sub_/) } });
    expect((await stored(form.id)).map((s) => s.id)).toEqual([String(body.id)]);
  });

  test("from a refused origin: no Access-Control-Allow-Origin, 403, nothing stored", async () => {
    const form = await createForm({ allowedDomains: ["example.com"] });
    const checked = await preflight(form.submitUrl, "https://evil.test");
    expect(checked.headers.get("access-control-allow-origin")).toBeNull();
    const posted = await postJson(form.submitUrl, "https://evil.test");
    expect(posted.headers.get("access-control-allow-origin")).toBeNull();
    expect({ status: posted.status, body: await posted.json() }).toEqual({
      status: 403,
      body: { error: { code: "origin_not_allowed", message: expect.any(String) } },
    });
    expect(await stored(form.id)).toEqual([]);
  });
});

describe("--max-body over a socket", () => {
  const json = { accept: "application/json", "content-type": "application/json" };

  test("a declared Content-Length over the limit is answered 413, and the server goes on", async () => {
    const form = await createForm();
    const answer = await fetch(form.submitUrl, { method: "POST", headers: json, body: JSON.stringify({ note: "x".repeat(8 * 1024 * 1024) }) });
    expect({ status: answer.status, body: await answer.json() }).toEqual({
      status: 413,
      body: { error: { code: "payload_too_large", message: expect.any(String) } },
    });
    const after = await fetch(form.submitUrl, { method: "POST", headers: json, body: JSON.stringify({ note: "small" }) });
    expect(after.status).toBe(200);
    expect((await stored(form.id)).map((s) => s.data)).toEqual([{ note: "small" }]);
  });

  test("a chunked body over the limit is answered 413", async () => {
    const form = await createForm();
    const body = chunked(JSON.stringify({ note: "x".repeat(2 * 1024 * 1024) }), 64);
    const answer = await fetch(form.submitUrl, { method: "POST", headers: json, body, duplex: "half" } as RequestInit);
    expect({ status: answer.status, body: await answer.json() }).toEqual({
      status: 413,
      body: { error: { code: "payload_too_large", message: expect.any(String) } },
    });
    expect(await stored(form.id)).toEqual([]);
  });
});

describe("the client address behind a proxy", () => {
  const post = (url: string, forwardedFor: string) =>
    fetch(url, { method: "POST", headers: { accept: "application/json", "x-forwarded-for": forwardedFor }, body: new URLSearchParams({ a: "1" }) }).then(
      (r) => r.status,
    );

  test("by default X-Forwarded-For is ignored: the default burst of 10 holds whatever it claims", async () => {
    const form = await createForm();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push(await post(form.submitUrl, `198.51.100.${i}`));
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
  });

  test("with --trust-proxy each forwarded address has its own bucket", async () => {
    const proxied = await startServerProcess({ args: ["--trust-proxy", "--rate-burst", "1"] });
    try {
      const minted = await runCli(["keys", "create", "--db", proxied.db]);
      const created = await fetch(`${proxied.url}/api/forms`, {
        method: "POST",
        headers: { authorization: `Bearer ${minted.stdout.trim()}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Behind a proxy" }),
      });
      const { submitUrl } = (await created.json()) as { submitUrl: string };
      expect([await post(submitUrl, "203.0.113.1"), await post(submitUrl, "203.0.113.1"), await post(submitUrl, "203.0.113.2")]).toEqual([200, 429, 200]);
    } finally {
      await proxied.stop();
      rmSync(proxied.dir, { recursive: true, force: true });
    }
  });
});
