import { expect, test } from "bun:test";
import { accessLine, serverLog } from "../../src/log.ts";
import { testApp } from "../helpers/app.ts";
import { apiError } from "./scenario.ts";
import { makeWorld } from "./world.ts";

const REQUEST_ID = /^req_[0-9a-z]{22}$/;

test("every answer carries a new X-Request-Id: API, errors, the public endpoint, pages, health", async () => {
  const t = await testApp();
  try {
    const w = await makeWorld(t);
    const answers = [
      await t.request("GET", "/api/forms", { key: w.admin }),
      await t.request("GET", "/api/forms"),
      await t.request("GET", "/api/nowhere"),
      await t.request("POST", `/f/${w.form.slug}`, { body: { email: "a@example.com" }, headers: { accept: "application/json" } }),
      await t.request("POST", `/f/${w.form.slug}`, { body: new URLSearchParams({ email: "b@example.com" }) }),
      await t.request("GET", "/healthz"),
      await t.request("GET", "/thanks"),
    ];
    const ids = answers.map((answer) => answer.headers.get("x-request-id") ?? "");
    expect(ids.filter((id) => !REQUEST_ID.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
    // Only the header is new: a 4xx body is what it always was.
    expect(await answers[1]!.json()).toEqual(apiError("unauthorized"));
    expect(Object.keys((await answers[2]!.json()).error)).toEqual(["code", "message"]);
  } finally {
    t.close();
  }
});

test("the access log line ends with the answer's request id", async () => {
  const t = await testApp();
  try {
    const answer = await t.request("GET", "/healthz", { headers: { "user-agent": "probe" } });
    const id = answer.headers.get("x-request-id")!;
    expect(t.logs.filter((line) => line.startsWith("GET /healthz"))).toEqual([
      expect.stringMatching(new RegExp(`^GET /healthz 200 \\d+\\.\\dms 127\\.0\\.0\\.1 "probe" ${id}$`)),
    ]);
  } finally {
    t.close();
  }
});

test("the JSON log carries requestId on the access line and on the error line of a 500", () => {
  const out: string[] = [];
  const err: string[] = [];
  const log = serverLog(
    "json",
    (line) => out.push(line),
    (line) => err.push(line),
  );
  log.access!({ method: "GET", path: "/api/forms", status: 500, ms: 1.25, ip: "203.0.113.7", userAgent: null, requestId: "req_01m8abc" });
  log.error("GET /api/forms failed", new Error("boom"), "req_01m8abc");
  expect(JSON.parse(out[0]!)).toMatchObject({ msg: "request", status: 500, requestId: "req_01m8abc" });
  expect(JSON.parse(err[0]!)).toMatchObject({ level: "error", msg: "GET /api/forms failed", requestId: "req_01m8abc" });
  const text: string[] = [];
  serverLog(
    "text",
    () => {},
    (line) => text.push(line),
  ).error("GET /api/forms failed", new Error("boom"), "req_01m8abc");
  expect(text[0]).toMatch(/^\S+Z GET \/api\/forms failed \(request req_01m8abc\): Error: boom/);
  expect(accessLine({ method: "GET", path: "/", status: 200, ms: 0.5, ip: "::1", userAgent: null, requestId: "req_x" })).toBe("GET / 200 0.5ms ::1 - req_x");
});

test("a 5xx carries the request id in its body, JSON or a browser's page, and in the error log line", async () => {
  const t = await testApp();
  try {
    const w = await makeWorld(t);
    t.services.submissions.receive = async () => {
      throw new Error("disk on fire");
    };
    const json = await t.request("POST", `/f/${w.form.slug}`, { body: { email: "a@example.com" }, headers: { accept: "application/json" } });
    const jsonId = json.headers.get("x-request-id")!;
    expect({ status: json.status, body: await json.json() }).toEqual({
      status: 500,
      body: { error: { code: "internal_error", message: expect.any(String), requestId: jsonId } },
    });
    const page = await t.request("POST", `/f/${w.form.slug}`, { body: new URLSearchParams({ email: "b@example.com" }) });
    const pageId = page.headers.get("x-request-id")!;
    expect({ status: page.status, type: page.headers.get("content-type") }).toEqual({ status: 500, type: "text/html; charset=utf-8" });
    expect(await page.text()).toContain(`Request id: ${pageId}`);
    expect(t.logs.filter((line) => line.includes("disk on fire"))).toEqual([
      expect.stringContaining(`(request ${jsonId})`),
      expect.stringContaining(`(request ${pageId})`),
    ]);
  } finally {
    t.close();
  }
});

test("with --trust-proxy, the proxy's X-Request-Id is kept when it is short and safe; otherwise a new one is made", async () => {
  const trusting = await testApp({ trustProxy: true });
  const untrusting = await testApp();
  try {
    const idOf = async (app: typeof trusting, given: string) =>
      (await app.request("GET", "/healthz", { headers: { "x-request-id": given } })).headers.get("x-request-id");
    expect(await idOf(trusting, "edge-7f3a9c:01")).toBe("edge-7f3a9c:01");
    expect(await idOf(untrusting, "edge-7f3a9c:01")).toMatch(REQUEST_ID);
    for (const unsafe of ["x".repeat(65), "two words", "<script>", "a\u00e9"]) expect(await idOf(trusting, unsafe)).toMatch(REQUEST_ID);
  } finally {
    trusting.close();
    untrusting.close();
  }
});
