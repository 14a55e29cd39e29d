import { afterEach, expect, test } from "bun:test";
import { solveChallenge, type Challenge } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/web/pbkdf2";
import { BASE } from "../helpers/app.ts";
import { expectHtmlError, expectJsonError, publicFixture, type PublicFixture } from "./public-support.ts";

let f: PublicFixture;
afterEach(() => f?.close());

const json = { accept: "application/json" };
// A low complexity keeps each solve to a few hundred tries, so the suite stays fast on a busy machine.
const CAPTCHA = { provider: "altcha", complexity: 300 };

async function challengeFor(slug: string, origin?: string): Promise<{ response: Response; challenge: Challenge }> {
  const response = await f.t.app.fetch(new Request(`${BASE}/f/${slug}/altcha`, { headers: origin ? { origin } : {} }));
  expect(response.status).toBe(200);
  return { response, challenge: (await response.clone().json()) as Challenge };
}

/** What the widget puts in the altcha field: base64 of the challenge and its solution. */
async function solved(challenge: Challenge): Promise<string> {
  const solution = await solveChallenge({ challenge, deriveKey });
  expect(solution).not.toBeNull();
  return btoa(JSON.stringify({ challenge, solution }));
}

test("altcha: a form shows its captcha and complexity, and needs no secret", async () => {
  f = await publicFixture();
  const form = await f.form({ captcha: { provider: "altcha" } });
  const read = (await (await f.t.request("GET", `/api/forms/${form.id}`, { key: f.key })).json()) as { captcha: unknown };
  expect(read.captcha).toEqual({ provider: "altcha", complexity: 20_000 });
  const patched = await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { captcha: CAPTCHA } });
  expect(((await patched.json()) as { captcha: unknown }).captcha).toEqual(CAPTCHA);
  await expectJsonError(
    await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { captcha: { provider: "altcha", complexity: 5 } } }),
    400,
    "invalid_body",
    "captcha.complexity",
  );
});

test("altcha: each challenge is new, signed, expiring, for this form only, with the form's CORS", async () => {
  f = await publicFixture();
  const form = await f.form({ captcha: CAPTCHA, allowedDomains: ["site.example"] });
  const first = await challengeFor(form.slug, "https://site.example");
  const second = await challengeFor(form.slug, "https://site.example");
  expect(first.response.headers.get("access-control-allow-origin")).toBe("https://site.example");
  expect(first.response.headers.get("cache-control")).toBe("no-store");
  expect(first.challenge.parameters.nonce).not.toBe(second.challenge.parameters.nonce);
  expect(first.challenge.signature).toMatch(/^[0-9a-f]{64}$/);
  expect(first.challenge.parameters).toMatchObject({ algorithm: "PBKDF2/SHA-256", data: { form: form.slug } });
  const expiresIn = first.challenge.parameters.expiresAt! * 1000 - Date.now();
  expect(expiresIn).toBeGreaterThan(15 * 60_000);
  expect(expiresIn).toBeLessThanOrEqual(20 * 60_000);
  const elsewhere = await f.t.app.fetch(new Request(`${BASE}/f/${form.slug}/altcha`, { headers: { origin: "https://evil.example" } }));
  expect(elsewhere.headers.get("access-control-allow-origin")).toBeNull();
  const plain = await f.form();
  await expectJsonError(await f.t.app.fetch(new Request(`${BASE}/f/${plain.slug}/altcha`)), 404, "not_found");
  await expectJsonError(await f.t.app.fetch(new Request(`${BASE}/f/no-such-form/altcha`)), 404, "form_not_found");
});

test("altcha: a solved challenge lets one post through, without storing the field; the same solution again is refused", async () => {
  f = await publicFixture();
  const form = await f.form({ captcha: CAPTCHA });
  const altcha = await solved((await challengeFor(form.slug)).challenge);
  const first = await f.post(form.slug, { body: { message: "hello", altcha }, headers: json });
  expect(first.status).toBe(200);
  await expectJsonError(await f.post(form.slug, { body: { message: "hello again", altcha }, headers: json }), 400, "captcha_failed", "altcha");
  expect((await f.stored(form.id)).map((s) => ({ data: s.data, isSpam: s.isSpam }))).toEqual([{ data: { message: "hello" }, isSpam: false }]);
});

test("altcha: no solution, a forged one, or one made for another form is refused (a browser gets the HTML page)", async () => {
  f = await publicFixture();
  const form = await f.form({ captcha: CAPTCHA });
  const other = await f.form({ captcha: CAPTCHA });
  await expectJsonError(await f.post(form.slug, { body: { message: "hi" }, headers: json }), 400, "captcha_failed", "altcha");
  await expectHtmlError(await f.post(form.slug, { body: new URLSearchParams({ message: "hi" }), headers: { referer: "https://site.example/contact" } }), 400, [
    "captcha",
  ]);
  const { challenge } = await challengeFor(form.slug);
  const forged = btoa(JSON.stringify({ challenge, solution: { counter: 1, derivedKey: "00".repeat(32) } }));
  await expectJsonError(await f.post(form.slug, { body: { message: "hi", altcha: forged }, headers: json }), 400, "captcha_failed", "altcha");
  const foreign = await solved((await challengeFor(other.slug)).challenge);
  await expectJsonError(await f.post(form.slug, { body: { message: "hi", altcha: foreign }, headers: json }), 400, "captcha_failed", "altcha");
  await expectJsonError(await f.post(form.slug, { body: { message: "hi", altcha: "not base64 json" }, headers: json }), 400, "captcha_failed", "altcha");
  expect(await f.stored(form.id)).toEqual([]);
});

test("altcha: the widget's script is served from inside formsvc, to any site", async () => {
  f = await publicFixture();
  const response = await f.t.app.fetch(new Request(`${BASE}/altcha.js`, { headers: { origin: "https://site.example" } }));
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  expect(response.headers.get("access-control-allow-origin")).toBe("*");
  const script = await response.text();
  expect(script.length).toBeGreaterThan(50_000);
  expect(script).toContain("altcha-widget");
});

test("altcha: challenges have a rate limit of their own per address, apart from the posts'", async () => {
  f = await publicFixture({ rateLimit: 6, rateBurst: 2 });
  const form = await f.form({ captcha: CAPTCHA });
  const ask = (ip: string) => f.t.app.fetch(new Request(`${BASE}/f/${form.slug}/altcha`, { headers: { origin: "https://site.test" } }), { ip });
  expect((await ask("192.0.2.1")).status).toBe(200);
  expect((await ask("192.0.2.1")).status).toBe(200);
  const refused = await ask("192.0.2.1");
  await expectJsonError(refused, 429, "rate_limited");
  expect(refused.headers.get("retry-after")).toBe("10");
  expect(refused.headers.get("access-control-allow-origin")).toBe("https://site.test");
  // Another address has its own bucket, and the posts of the same address theirs.
  expect((await ask("192.0.2.2")).status).toBe(200);
  const { challenge } = await challengeFor(form.slug);
  const posted = await f.post(form.slug, { ip: "192.0.2.1", headers: json, body: { message: "hi", altcha: await solved(challenge) } });
  expect(posted.status).toBe(200);
});
