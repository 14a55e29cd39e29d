import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE } from "../helpers/app.ts";
import { expectHtmlError, expectJsonError, publicFixture, runScenario, type PublicFixture, type Scenario } from "./public-support.ts";

const MAX_BODY = 1024;
const THANKS = `${BASE}/thanks`;
const JSON_ACCEPT = { accept: "application/json" };
const FROM_SITE = { origin: "https://www.example.com" };
const FROM_ELSEWHERE = { origin: "https://evil.test" };
const BROWSER_ACCEPT = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

let fx: PublicFixture;
beforeAll(async () => {
  fx = await publicFixture({ maxBody: MAX_BODY });
});
afterAll(() => fx.close());

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

const ANSWERS: Scenario[] = [
  {
    name: "Accept: application/json gets 200 {success, message, id}",
    request: { headers: JSON_ACCEPT, body: form({ name: "Ann" }) },
    status: 200,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "an Accept list that names application/json (fetch libraries) gets JSON",
    request: { headers: { accept: "application/json, text/plain, */*" }, body: { name: "Ann" } },
    status: 200,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "a browser's Accept gets 303 to the default thank-you page",
    request: { headers: BROWSER_ACCEPT, body: form({ name: "Ann" }) },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "a JSON body without Accept: application/json is redirected too",
    request: { body: { name: "Ann" } },
    status: 303,
    location: THANKS,
    stored: { data: { name: "Ann" } },
  },
  {
    name: "the form's redirectUrl comes before the thank-you page",
    form: { redirectUrl: "https://example.com/merci?from=form" },
    request: { body: form({ name: "Ann" }) },
    status: 303,
    location: "https://example.com/merci?from=form",
    stored: { data: { name: "Ann" } },
  },
  {
    name: "_next comes before the form's redirectUrl",
    form: { redirectUrl: "https://example.com/merci" },
    request: { body: form({ name: "Ann", _next: "https://example.org/next#top" }) },
    status: 303,
    location: "https://example.org/next#top",
    stored: { data: { name: "Ann" } },
  },
  {
    name: "an empty _next falls back to the form's redirectUrl",
    form: { redirectUrl: "https://example.com/merci" },
    request: { body: form({ name: "Ann", _next: "" }) },
    status: 303,
    location: "https://example.com/merci",
    stored: { data: { name: "Ann" } },
  },
  {
    name: "_next on one of the form's allowed domains is followed",
    form: { allowedDomains: ["*.example.com"] },
    request: { headers: FROM_SITE, body: form({ name: "Ann", _next: "https://shop.example.com/thanks" }) },
    status: 303,
    location: "https://shop.example.com/thanks",
    headers: { "access-control-allow-origin": "https://www.example.com" },
    stored: { data: { name: "Ann" } },
  },
  {
    name: "a relative _next is 400 invalid_redirect on a page for the browser",
    request: { body: form({ name: "Ann", _next: "/thanks" }) },
    status: 400,
    error: { code: "invalid_redirect", html: true },
  },
  {
    name: "a javascript: _next is 400 invalid_redirect",
    request: { body: form({ name: "Ann", _next: "javascript:alert(1)" }) },
    status: 400,
    error: { code: "invalid_redirect", html: true },
  },
  {
    name: "a _next off the form's allowed domains is 400 invalid_redirect",
    form: { allowedDomains: ["www.example.com"] },
    request: { headers: FROM_SITE, body: form({ name: "Ann", _next: "https://phish.test/thanks" }) },
    status: 400,
    error: { code: "invalid_redirect", html: true },
  },
  {
    name: "a _next with a line break (header injection) is 400 invalid_redirect, not a 500",
    request: { body: form({ name: "Ann", _next: "https://example.com/ok\r\nSet-Cookie: sid=1" }) },
    status: 400,
    error: { code: "invalid_redirect", html: true },
    headers: { "set-cookie": null },
  },
  {
    name: "_next sent twice is 400 invalid_redirect",
    request: { body: "name=Ann&_next=https://a.example&_next=https://b.example", headers: { "content-type": "application/x-www-form-urlencoded" } },
    status: 400,
    error: { code: "invalid_redirect", html: true },
  },
];

// Each row breaks several rules at once; the answer must name the first of them in the order of docs/api.md ("Order of checks").
const ORDER: Scenario[] = [
  {
    name: "an unknown slug is 404 form_not_found before anything else",
    slug: "no-such-form",
    request: { path: "/api/f", headers: { ...JSON_ACCEPT, ...FROM_ELSEWHERE, "content-type": "text/plain" }, body: "x".repeat(MAX_BODY * 2) },
    status: 404,
    error: { code: "form_not_found" },
  },
  {
    name: "an inactive form is 403 form_inactive before the origin check",
    form: { isActive: false, allowedDomains: ["example.com"] },
    request: { headers: { ...JSON_ACCEPT, ...FROM_ELSEWHERE }, body: "{bad" },
    status: 403,
    error: { code: "form_inactive" },
  },
  {
    name: "a refused origin is 403 origin_not_allowed before size and parsing",
    form: { allowedDomains: ["example.com"] },
    request: { headers: { ...JSON_ACCEPT, ...FROM_ELSEWHERE, "content-type": "application/json" }, body: `{${"x".repeat(MAX_BODY)}` },
    status: 403,
    error: { code: "origin_not_allowed" },
    headers: { "access-control-allow-origin": null },
  },
  {
    name: "an allowed origin with a too-large malformed body is 413 before the parse",
    form: { allowedDomains: ["www.example.com"] },
    request: { headers: { ...JSON_ACCEPT, ...FROM_SITE, "content-type": "application/json" }, body: `{${"x".repeat(MAX_BODY)}` },
    status: 413,
    error: { code: "payload_too_large" },
    headers: { "access-control-allow-origin": "https://www.example.com" },
  },
  {
    name: "malformed JSON is 400 invalid_json before an empty or a bad _next matters",
    request: { headers: { "content-type": "application/json" }, body: '{"_next": "nope",' },
    status: 400,
    error: { code: "invalid_json", html: true },
  },
];

describe("answers to a public submission", () => {
  for (const scenario of ANSWERS) test(scenario.name, () => runScenario(fx, scenario));
});

describe("order of the checks", () => {
  for (const scenario of ORDER) test(scenario.name, () => runScenario(fx, scenario));
});

describe("error answers", () => {
  test("a browser gets a page that says what failed, escapes the Referer and links back to it", async () => {
    const referer = `https://example.com/contact?q="><script>alert(1)</script>`;
    const answer = await fx.post("no-such-form", { headers: { referer }, body: form({ name: "Ann" }) });
    const page = await expectHtmlError(answer, 404, [/does not exist/]);
    expect(page).not.toContain("<script>");
    expect(page).toContain(`<a href="https://example.com/contact?q=&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">`);
  });

  test("a Referer that is not an http(s) address gets no link", async () => {
    const answer = await fx.post("no-such-form", { headers: { referer: "javascript:alert(1)" }, body: form({ name: "Ann" }) });
    const page = await expectHtmlError(answer, 404);
    expect(page).not.toContain("javascript:");
    expect(page).not.toContain("<a ");
  });

  test("an inactive form tells the browser so, with the same 403", async () => {
    const inactive = await fx.form({ isActive: false });
    const page = await expectHtmlError(await fx.post(inactive.slug, { headers: { referer: "https://example.com/" }, body: form({ a: "1" }) }), 403, [
      /not accepting submissions/,
      /<a href="https:\/\/example.com\/">/,
    ]);
    expect(page).toContain("403");
    await expectJsonError(await fx.post(inactive.slug, { headers: JSON_ACCEPT, body: { a: "1" } }), 403, "form_inactive");
    expect(await fx.stored(inactive.id)).toEqual([]);
  });
});

describe("the default thank-you page", () => {
  test("is a small HTML page that links back to the form's page", async () => {
    const answer = await fx.t.request("GET", "/thanks", { headers: { referer: "https://example.com/contact" } });
    expect({ status: answer.status, type: answer.headers.get("content-type") }).toEqual({ status: 200, type: "text/html; charset=utf-8" });
    const page = await answer.text();
    expect(page).toContain("Thank you");
    expect(page).toContain(`<a href="https://example.com/contact">`);
  });
});
