import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// A fake siteverify on loopback stands in for each provider: it knows one secret and one good token, as the
// real ones do, and records what it was sent. The server is pointed at it with --captcha-verify-url.
const SECRET = "0x4AAAAAAA-server-secret-do-not-leak";
const GOOD = "token-the-widget-made";

interface VerifyCall {
  secret: string | null;
  response: string | null;
  remoteip: string | null;
}

const verifyCalls: VerifyCall[] = [];
let verifier: ReturnType<typeof Bun.serve>;
let hanging: ReturnType<typeof Bun.serve>;
const releases: (() => void)[] = [];
let server: ServerProcess;
let key: string;

beforeAll(async () => {
  verifier = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const form = new URLSearchParams(await request.text());
      const call = { secret: form.get("secret"), response: form.get("response"), remoteip: form.get("remoteip") };
      verifyCalls.push(call);
      if (new URL(request.url).pathname === "/broken") return new Response("upstream error", { status: 502 });
      const success = call.secret === SECRET && call.response === GOOD;
      return Response.json(success ? { success: true } : { success: false, "error-codes": ["invalid-input-response"] });
    },
  });
  // A provider that takes the request and never answers: the server must give up after its timeout.
  hanging = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>((resolve) => releases.push(() => resolve(new Response("{}")))) });
  const base = `http://127.0.0.1:${verifier.port}`;
  server = await startServerProcess({
    args: [
      "--rate-limit",
      "0",
      "--captcha-verify-url",
      `turnstile=${base}/turnstile`,
      "--captcha-verify-url",
      `hcaptcha=${base}/hcaptcha`,
      "--captcha-verify-url",
      `recaptcha=http://127.0.0.1:${hanging.port}/recaptcha`,
    ],
    // The default 5 s (--captcha-timeout-ms), shortened so that the outage test does not wait that long.
    env: { FORMSVC_CAPTCHA_TIMEOUT_MS: "700" },
  });
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
}, 30_000);

afterAll(async () => {
  for (const release of releases.splice(0)) release();
  verifier.stop(true);
  hanging.stop(true);
  await server.stop();
  rmSync(server.dir, { recursive: true, force: true });
}, 30_000);

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; text: string; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, body: text ? JSON.parse(text) : null };
}

async function formWith(provider: string, secret = SECRET): Promise<{ id: string; slug: string }> {
  const made = await api("POST", "/api/forms", { name: `Signup ${provider}`, captcha: { provider, secret } });
  expect(made.status).toBe(201);
  expect(made.body.captcha).toEqual({ provider, siteKey: null });
  expect(made.text).not.toContain(secret);
  return made.body;
}

const postJson = (slug: string, body: Record<string, unknown>) =>
  fetch(`${server.url}/f/${slug}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });

async function stored(formId: string, filter = "all") {
  return (await api("GET", `/api/forms/${formId}/submissions?filter=${filter}`)).body.submissions as any[];
}

test("a good token is verified with the secret, the token and the client address, and the submission is stored", async () => {
  const form = await formWith("turnstile");
  verifyCalls.length = 0;
  const response = await postJson(form.slug, { email: "ann@example.com", "cf-turnstile-response": GOOD });
  expect(response.status).toBe(200);
  expect(verifyCalls).toEqual([{ secret: SECRET, response: GOOD, remoteip: "127.0.0.1" }]);
  expect(await stored(form.id)).toEqual([expect.objectContaining({ data: { email: "ann@example.com" }, isSpam: false, spamReason: null })]);
}, 30_000);

test("a bad or missing token is 400 captcha_failed, nothing stored; a browser gets a page that says so", async () => {
  const form = await formWith("hcaptcha");
  for (const body of [
    { email: "bot@example.com", "h-captcha-response": "forged" },
    { email: "bot@example.com" },
    { email: "bot@example.com", "h-captcha-response": "" },
    { email: "bot@example.com", "cf-turnstile-response": GOOD },
  ]) {
    const response = await postJson(form.slug, body);
    expect({ body, status: response.status, answer: await response.json() }).toEqual({
      body,
      status: 400,
      answer: {
        error: { code: "captcha_failed", message: expect.stringContaining("captcha"), field: "h-captcha-response" },
        errors: [{ code: "captcha_failed", message: expect.stringContaining("captcha"), field: "h-captcha-response" }],
      },
    });
  }
  const browser = await fetch(`${server.url}/f/${form.slug}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", referer: "https://example.com/signup" },
    body: "email=bot%40example.com&h-captcha-response=forged",
    redirect: "manual",
  });
  expect(browser.status).toBe(400);
  expect(browser.headers.get("content-type")).toStartWith("text/html");
  const page = await browser.text();
  expect(page).toContain("captcha");
  expect(page).toContain('href="https://example.com/signup"');
  expect(await stored(form.id)).toEqual([]);
  expect(await stored(form.id, "spam")).toEqual([]);

  // The right field with a good token from a browser: 303 to the thank-you page, stored.
  const good = await fetch(`${server.url}/f/${form.slug}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `email=ok%40example.com&h-captcha-response=${GOOD}`,
    redirect: "manual",
  });
  expect(good.status).toBe(303);
  expect(await stored(form.id)).toHaveLength(1);
}, 30_000);

test("a provider that does not answer within the timeout: stored as spam (captcha_unverified), answered as a success", async () => {
  const form = await formWith("recaptcha");
  const response = await postJson(form.slug, { email: "patient@example.com", "g-recaptcha-response": GOOD });
  expect(response.status).toBe(200);
  const { id } = (await response.json()) as { id: string };
  expect(await stored(form.id)).toEqual([]);
  const [spam] = await stored(form.id, "spam");
  expect(spam).toMatchObject({ id, data: { email: "patient@example.com" }, isSpam: true, spamReason: "captcha_unverified" });

  // Nothing is lost: the owner moves it out of spam, and the reason goes with the flag.
  const moved = await api("PATCH", `/api/forms/${form.id}/submissions/${id}`, { isSpam: false });
  expect(moved.body).toMatchObject({ isSpam: false, spamReason: null });
  const marked = await api("PATCH", `/api/forms/${form.id}/submissions/${id}`, { isSpam: true });
  expect(marked.body).toMatchObject({ isSpam: true, spamReason: "owner" });
}, 30_000);

test("a provider that is down (an error answer, or nothing listening) is an outage too, not a refusal", async () => {
  const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const closedPort = closed.port;
  closed.stop(true);
  const broken = await startServerProcess({
    args: [
      "--rate-limit",
      "0",
      "--captcha-verify-url",
      `turnstile=http://127.0.0.1:${verifier.port}/broken`,
      "--captcha-verify-url",
      `hcaptcha=http://127.0.0.1:${closedPort}/`,
    ],
  });
  try {
    const brokenKey = (await runCli(["keys", "create", "--db", broken.db])).stdout.trim();
    for (const provider of ["turnstile", "hcaptcha"]) {
      const made = await fetch(`${broken.url}/api/forms`, {
        method: "POST",
        headers: { authorization: `Bearer ${brokenKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: provider, captcha: { provider, secret: SECRET } }),
      });
      const form = (await made.json()) as { id: string; slug: string };
      const field = provider === "turnstile" ? "cf-turnstile-response" : "h-captcha-response";
      const answer = await fetch(`${broken.url}/f/${form.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ email: "x@example.com", [field]: GOOD }),
      });
      expect({ provider, status: answer.status }).toEqual({ provider, status: 200 });
      const spam = await fetch(`${broken.url}/api/forms/${form.id}/submissions?filter=spam`, { headers: { authorization: `Bearer ${brokenKey}` } });
      expect(((await spam.json()) as any).submissions).toEqual([expect.objectContaining({ spamReason: "captcha_unverified" })]);
    }
    expect(broken.stderr()).not.toContain(SECRET);
  } finally {
    await broken.stop();
    rmSync(broken.dir, { recursive: true, force: true });
  }
}, 30_000);

test("the honeypot wins over the captcha: spam with reason honeypot, the provider not asked", async () => {
  const form = await formWith("turnstile");
  verifyCalls.length = 0;
  const response = await postJson(form.slug, { email: "bot@example.com", _gotcha: "filled" });
  expect(response.status).toBe(200);
  expect(verifyCalls).toEqual([]);
  expect(await stored(form.id, "spam")).toEqual([expect.objectContaining({ spamReason: "honeypot" })]);
}, 30_000);

test("the captcha is set, changed and removed through the API and the CLI; its secret is in no response and no log", async () => {
  const form = await formWith("turnstile");
  const shown = [await api("GET", `/api/forms/${form.id}`), await api("GET", "/api/forms"), await api("PATCH", `/api/forms/${form.id}`, { name: "Renamed" })];
  for (const answer of shown) expect(answer.text).not.toContain(SECRET);
  expect(shown[0]!.body.captcha).toEqual({ provider: "turnstile", siteKey: null });

  const env = { FORMSVC_URL: server.url, FORMSVC_KEY: key };
  const changed = await runCli(["forms", "update", form.slug, "--captcha", "hcaptcha", "--captcha-secret-stdin", "--json"], {
    env,
    stdin: "another-secret-value\n",
  });
  expect(changed.code).toBe(0);
  expect(JSON.parse(changed.stdout).captcha).toEqual({ provider: "hcaptcha", siteKey: null });
  expect(changed.stdout + changed.stderr).not.toContain("another-secret-value");
  const local = await runCli(["forms", "get", form.slug, "--db", server.db]);
  expect(local.stdout).toContain("captcha\thcaptcha\n");

  const removed = await runCli(["forms", "update", form.slug, "--captcha", "none", "--json"], { env });
  expect(JSON.parse(removed.stdout).captcha).toBeNull();
  const noCaptcha = await postJson(form.slug, { email: "free@example.com" });
  expect(noCaptcha.status).toBe(200);

  const usage = await runCli(["forms", "update", form.slug, "--captcha", "turnstile"], { env });
  expect(usage).toEqual({
    code: 2,
    stdout: "",
    stderr: "formsvc: --captcha turnstile needs the provider's secret key: --captcha-secret SECRET or --captcha-secret-stdin\n",
  });
  const unknown = await runCli(["forms", "update", form.slug, "--captcha", "friendlycaptcha", "--captcha-secret", "s"], { env });
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toBe("formsvc: captcha.provider must be one of recaptcha, hcaptcha, turnstile, altcha.\n");

  expect(server.stderr()).not.toContain(SECRET);
  expect(server.stderr()).not.toContain("another-secret-value");
}, 30_000);
