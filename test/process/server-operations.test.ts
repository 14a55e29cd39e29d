import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadServeConfig } from "../../src/config.ts";
import { operator } from "../../src/services/principal.ts";
import { serverLog } from "../../src/log.ts";
import { startServer, type RunningServer } from "../../src/server.ts";
import { testApp } from "../helpers/app.ts";
import { freePort } from "../helpers/smtp.ts";

// The real server (src/server.ts: Bun.serve, its body guard, its log) on real sockets, in this process so that
// its log lines can be read as they are written.
const dirs: string[] = [];
const running: RunningServer[] = [];

interface Started {
  server: RunningServer;
  out: string[];
  err: string[];
  key: string;
  slug: string;
  formId: string;
}

async function start(flags: Record<string, string> = {}): Promise<Started> {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-ops-"));
  dirs.push(dir);
  const out: string[] = [];
  const err: string[] = [];
  const config = loadServeConfig({ host: "127.0.0.1", port: "0", db: join(dir, "formsvc.db"), rateLimit: "0", ...flags }, {});
  const server = await startServer(
    config,
    serverLog(
      config.logFormat,
      (line) => out.push(line),
      (line) => err.push(line),
    ),
  );
  running.push(server);
  const account = await server.services.accounts.resolve(undefined);
  const key = (await server.services.keys.create(operator(account.id, "live"), { name: "ops" })).key;
  const form = await server.services.forms.create(operator(account.id, "live"), { name: "Contact" });
  return { server, out, err, key, slug: form.slug, formId: form.id };
}

afterEach(async () => {
  for (const server of running.splice(0)) await server.stop();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Sends raw bytes on a socket and returns what comes back until the server closes it (or `ms` pass). */
function raw(url: string, text: string, { closeAfterMs }: { closeAfterMs?: number } = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    let answer = "";
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on("data", (chunk) => (answer += chunk.toString()));
    socket.on("close", () => resolve(answer));
    socket.on("error", () => resolve(answer));
    if (closeAfterMs !== undefined) setTimeout(() => socket.destroy(), closeAfterMs);
  });
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(10);
  }
}

describe("requests a client gives up on, and bodies over every limit", () => {
  test("a client that drops the connection mid-body is one short log line, no stack, and not a 500", async () => {
    const s = await start({ metrics: "true" });
    for (let i = 0; i < 20; i++) {
      await raw(s.server.url, `POST /f/${s.slug} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"name":"An`, {
        closeAfterMs: 30,
      });
    }
    await until(() => s.out.filter((line) => line.includes(`/f/${s.slug}`)).length === 20);
    const lines = s.out.filter((line) => line.includes(`/f/${s.slug}`));
    expect(lines[0]).toMatch(new RegExp(`^\\S+Z POST /f/${s.slug} 499 \\(client closed the connection\\) \\d+\\.\\dms 127\\.0\\.0\\.1 - req_[0-9a-z]{22}$`));
    expect(s.err).toEqual([]);
    const metrics = await (await fetch(`${s.server.url}/metrics`)).text();
    expect(metrics).toContain(`formsvc_http_requests_total{method="POST",route="/f/:slug",status="499"} 20`);
    expect(metrics).not.toContain('status="500"');
  });

  test("a Content-Length far over every limit gets the 413 of docs/api.md, as JSON or as a page", async () => {
    const s = await start({ maxBody: "1024" });
    const head = (accept: string) =>
      `POST /f/${s.slug} HTTP/1.1\r\nHost: x\r\nAccept: ${accept}\r\nContent-Type: application/json\r\nContent-Length: ${200 * 1024 * 1024}\r\nConnection: close\r\n\r\n{"a":1`;
    const jsonAnswer = await raw(s.server.url, head("application/json"), { closeAfterMs: 2000 });
    expect(jsonAnswer).toStartWith("HTTP/1.1 413");
    expect(jsonAnswer.toLowerCase()).toContain("content-type: application/json; charset=utf-8");
    const tooLarge = { code: "payload_too_large", message: "The body is larger than the limit of 1024 bytes." };
    expect(JSON.parse(jsonAnswer.slice(jsonAnswer.indexOf("\r\n\r\n") + 4))).toEqual({ error: tooLarge, errors: [tooLarge] });
    const page = await raw(s.server.url, head("text/html"), { closeAfterMs: 2000 });
    expect(page).toStartWith("HTTP/1.1 413");
    expect(page.toLowerCase()).toContain("content-type: text/html; charset=utf-8");
    expect(page).toContain("<!doctype html>");
    const management = await fetch(`${s.server.url}/api/forms`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: new Uint8Array(2 * 1024 * 1024),
    });
    expect({ status: management.status, body: await management.json() }).toEqual({
      status: 413,
      body: {
        error: { code: "payload_too_large", message: "The body is larger than the limit of 1024 bytes." },
        errors: [{ code: "payload_too_large", message: "The body is larger than the limit of 1024 bytes." }],
      },
    });
  });
});

describe("health and metrics", () => {
  test("/healthz, and any request, is 503 unavailable when the database does not answer", async () => {
    const t = await testApp();
    const key = await (await t.account()).key();
    const ok = await t.request("GET", "/healthz");
    expect({ status: ok.status, body: await ok.json() }).toEqual({ status: 200, body: { status: "ok" } });
    t.services.store.close();
    const down = await t.request("GET", "/healthz");
    const message = "The service cannot reach its database right now. Try again in a moment.";
    // A 5xx names its request, so that its log line can be found.
    const answerOf = async (response: Response) => ({ status: response.status, body: await response.json(), requestId: response.headers.get("x-request-id") });
    const unavailable = (requestId: string | null) => ({
      status: 503,
      body: { error: { code: "unavailable", message, requestId }, errors: [{ code: "unavailable", message }] },
      requestId,
    });
    const health = await answerOf(down);
    expect(health).toEqual(unavailable(health.requestId));
    const api = await answerOf(await t.request("GET", "/api/forms", { key }));
    expect(api).toEqual(unavailable(api.requestId));
    expect([health.requestId, api.requestId]).toEqual([expect.stringMatching(/^req_/), expect.stringMatching(/^req_/)]);
  });

  test("--metrics: requests by route pattern and status, submissions and spam, outbox depth, latency", async () => {
    const s = await start({ metrics: "true", webhooksAllowPrivate: "true" });
    const owner = operator((await s.server.services.accounts.resolve(undefined)).id, "live");
    await s.server.services.forms.update(owner, s.slug, { notificationEmail: "owner@example.com" });
    // A receiver that is not there: each delivery stays pending, waiting for its retry.
    await s.server.services.webhooks.create(owner, s.slug, { url: `http://127.0.0.1:${await freePort()}/hook` });
    const post = (body: Record<string, string>) =>
      fetch(`${s.server.url}/f/${s.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(body),
      });
    expect((await post({ name: "Ann" })).status).toBe(200);
    expect((await post({ name: "Bob" })).status).toBe(200);
    expect((await post({ name: "Bot", _gotcha: "x" })).status).toBe(200);
    expect((await fetch(`${s.server.url}/api/forms/frm_nope`, { headers: { authorization: `Bearer ${s.key}` } })).status).toBe(404);
    expect((await fetch(`${s.server.url}/no/such/path?secret=1`)).status).toBe(404);
    const answer = await fetch(`${s.server.url}/metrics`);
    expect(answer.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await answer.text();
    for (const line of [
      `formsvc_http_requests_total{method="POST",route="/f/:slug",status="200"} 3`,
      `formsvc_http_requests_total{method="GET",route="/api/forms/:id",status="404"} 1`,
      `formsvc_http_requests_total{method="GET",route="unmatched",status="404"} 1`,
      `formsvc_submissions_total{spam="false"} 2`,
      `formsvc_submissions_total{spam="true"} 1`,
      `formsvc_notification_outbox{status="pending"} 2`,
      `formsvc_webhook_outbox{status="pending"} 2`,
      // Two failures in a row: not yet enough to pause the endpoint.
      "formsvc_webhook_circuits_open 0",
      `formsvc_http_request_duration_seconds_count{method="POST",route="/f/:slug"} 3`,
      `formsvc_http_request_duration_seconds_bucket{method="POST",route="/f/:slug",le="+Inf"} 3`,
    ]) {
      expect(text.split("\n")).toContain(line);
    }
    expect(text).not.toContain(s.slug);
    expect(text).not.toContain("secret");
  });

  test("without --metrics there is no /metrics; --metrics-listen serves it on its own address only", async () => {
    const plain = await start();
    expect((await fetch(`${plain.server.url}/metrics`)).status).toBe(404);
    expect(plain.server.metricsUrl).toBeNull();
    const apart = await start({ metricsListen: "127.0.0.1:0" });
    expect((await fetch(`${apart.server.url}/metrics`)).status).toBe(404);
    const scraped = await fetch(apart.server.metricsUrl!);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toContain("formsvc_submissions_total");
  });
});

describe("request logs", () => {
  test("text: method, path without the query, status, ms, client address, user agent; never the key or body", async () => {
    const s = await start();
    await fetch(`${s.server.url}/api/forms?limit=5&token=hunter2`, { headers: { authorization: `Bearer ${s.key}`, "user-agent": 'curl/8.5 "x" \\' } });
    await fetch(`${s.server.url}/f/${s.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": "fetch" },
      body: '{"password":"s3cret"}',
    });
    expect(s.out[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z GET \/api\/forms 200 \d+\.\dms 127\.0\.0\.1 "curl\/8\.5 \\x22x\\x22 \\x5c" req_[0-9a-z]{22}$/);
    expect(s.out[1]).toMatch(new RegExp(`^\\S+Z POST /f/${s.slug} 303 \\d+\\.\\dms 127\\.0\\.0\\.1 "fetch" req_[0-9a-z]{22}$`));
    const all = s.out.join("\n");
    for (const secret of ["hunter2", "limit=5", s.key, "s3cret"]) expect(all).not.toContain(secret);
  });

  test("--log-format json: one object a line, for log shippers", async () => {
    const s = await start({ logFormat: "json", trustProxy: "true" });
    // Behind the proxy it trusts, the server keeps the proxy's request id: one id in both logs.
    const answer = await fetch(`${s.server.url}/healthz?x=1`, {
      headers: { "user-agent": "probe/1", "x-forwarded-for": "203.0.113.9", "x-request-id": "edge-4b1f" },
    });
    expect(answer.headers.get("x-request-id")).toBe("edge-4b1f");
    expect(s.out).toHaveLength(1);
    expect(JSON.parse(s.out[0]!)).toEqual({
      time: expect.stringMatching(/Z$/),
      level: "info",
      msg: "request",
      method: "GET",
      path: "/healthz",
      status: 200,
      ms: expect.any(Number),
      ip: "203.0.113.9",
      userAgent: "probe/1",
      requestId: "edge-4b1f",
    });
  });
});
