import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE } from "../helpers/app.ts";
import { publicFixture, type PublicFixture } from "./public-support.ts";

// Answers that the clients sites already use understand (docs/api.md, "Public submission endpoint"): Formspree's libraries read `next` and
// `errors`, htmx swaps a 200 fragment and follows HX-Redirect, and a browser that follows a post is let read it.

let f: PublicFixture;
beforeAll(async () => {
  f = await publicFixture();
});
afterAll(() => f.close());

const SITE = "https://site.example";
const json = { accept: "application/json", origin: SITE };

test("a JSON success carries next: where a browser would have gone (_next, the form's redirectUrl, else /thanks)", async () => {
  const plain = await f.form();
  const redirecting = await f.form({ redirectUrl: "https://site.example/done" });
  const bodies = await Promise.all([
    f.post(plain.slug, { body: { email: "a@example.com" }, headers: json }).then((r) => r.json()),
    f.post(redirecting.slug, { body: { email: "a@example.com" }, headers: json }).then((r) => r.json()),
    f.post(redirecting.slug, { body: { email: "a@example.com", _next: "https://site.example/next" }, headers: json }).then((r) => r.json()),
  ]);
  expect(bodies.map((b) => (b as { next: string }).next)).toEqual([`${BASE}/thanks`, "https://site.example/done", "https://site.example/next"]);
});

test("every JSON error carries errors beside error, on the public endpoint and on the API", async () => {
  const form = await f.form();
  const publicError = await f.post(form.slug, { body: {}, headers: json });
  const item = { code: "empty_submission", message: "The submission has no fields to store." };
  expect({ status: publicError.status, body: await publicError.json() }).toEqual({ status: 400, body: { error: item, errors: [item] } });
  const apiError = await f.t.request("POST", "/api/forms", { key: f.key, body: { name: "" } });
  const body = (await apiError.json()) as { error: { field: string }; errors: { field: string }[] };
  expect({ status: apiError.status, field: body.error.field, errors: body.errors }).toEqual({ status: 400, field: "name", errors: [body.error] });
});

test("htmx: a success is a 200 fragment with the thank-you message; HX-Redirect only when a redirect was asked for", async () => {
  const plain = await f.form();
  const redirecting = await f.form({ redirectUrl: "https://site.example/done" });
  const htmx = { "hx-request": "true", origin: SITE, "content-type": "application/x-www-form-urlencoded" };
  const thanked = await f.post(plain.slug, { body: "email=a%40example.com", headers: htmx });
  expect({
    status: thanked.status,
    type: thanked.headers.get("content-type"),
    redirect: thanked.headers.get("hx-redirect"),
    cors: thanked.headers.get("access-control-allow-origin"),
    exposed: thanked.headers.get("access-control-expose-headers"),
  }).toEqual({ status: 200, type: "text/html; charset=utf-8", redirect: null, cors: SITE, exposed: "Retry-After, HX-Redirect, Idempotent-Replayed" });
  expect(await thanked.text()).toContain("Thank you! Your submission has been received.");
  const redirected = await f.post(redirecting.slug, { body: "email=a%40example.com", headers: htmx });
  expect({ status: redirected.status, redirect: redirected.headers.get("hx-redirect") }).toEqual({ status: 200, redirect: "https://site.example/done" });
  expect((await f.stored(plain.id)).length + (await f.stored(redirecting.id)).length).toBe(2);
});

test("htmx: an error is a 200 fragment that says what went wrong, with the form's CORS headers; nothing is stored", async () => {
  const form = await f.form({ allowedDomains: ["site.example"] });
  const answer = await f.post(form.slug, {
    body: "_gotcha=",
    headers: { "hx-request": "true", origin: SITE, "content-type": "application/x-www-form-urlencoded" },
  });
  const page = await answer.text();
  expect({ status: answer.status, cors: answer.headers.get("access-control-allow-origin") }).toEqual({ status: 200, cors: SITE });
  expect(page).toContain('class="formsvc-errors"');
  expect(page).toContain("The submission has no fields to store.");
  expect(page).not.toContain("<html");
  expect(await f.stored(form.id)).toEqual([]);
});

test("the preflight allows htmx's headers; /thanks answers its preflight and its GET with CORS headers", async () => {
  const form = await f.form({ allowedDomains: ["site.example"] });
  const preflight = await f.post(form.slug, { method: "OPTIONS", headers: { origin: SITE, "access-control-request-method": "POST" } });
  expect({ status: preflight.status, headers: preflight.headers.get("access-control-allow-headers") }).toEqual({
    status: 204,
    headers: expect.stringContaining("HX-Request"),
  });
  const thanksPreflight = await f.t.app.fetch(
    new Request(`${BASE}/thanks`, {
      method: "OPTIONS",
      headers: { origin: SITE, "access-control-request-method": "GET", "access-control-request-headers": "hx-request" },
    }),
  );
  expect({
    status: thanksPreflight.status,
    origin: thanksPreflight.headers.get("access-control-allow-origin"),
    headers: thanksPreflight.headers.get("access-control-allow-headers"),
  }).toEqual({ status: 204, origin: SITE, headers: "hx-request" });
  const thanks = await f.t.app.fetch(new Request(`${BASE}/thanks`, { headers: { origin: SITE } }));
  expect({ status: thanks.status, origin: thanks.headers.get("access-control-allow-origin") }).toEqual({ status: 200, origin: SITE });
});
