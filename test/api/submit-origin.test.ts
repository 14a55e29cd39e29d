import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE } from "../helpers/app.ts";
import { expectJsonError, publicFixture, type PublicFixture } from "./public-support.ts";

const JSON_ACCEPT = { accept: "application/json" };

let fx: PublicFixture;
beforeAll(async () => {
  fx = await publicFixture();
});
afterAll(() => fx.close());

// [allowedDomains entry, page address, allowed?]
const PATTERNS: [string, string, boolean][] = [
  ["example.com", "https://example.com", true],
  ["example.com", "http://example.com:8080", true],
  ["example.com", "https://EXAMPLE.com", true],
  ["example.com", "https://www.example.com", false],
  ["example.com", "https://notexample.com", false],
  ["example.com", "https://example.com.evil.test", false],
  ["*.example.com", "https://shop.example.com", true],
  ["*.example.com", "https://a.b.example.com", true],
  ["*.example.com", "https://example.com", false],
  ["*.example.com", "https://badexample.com", false],
  ["localhost:3000", "http://localhost:3000", true],
  ["localhost:3000", "http://localhost:3001", false],
  ["localhost:3000", "http://localhost", false],
  ["example.com", "null", false],
  ["example.com", "file:///home/ann/form.html", false],
];

/** Posts JSON from `headers` and returns what a fetch() caller would see, plus what was stored. */
async function postFrom(domains: string[], headers: Record<string, string>) {
  const form = await fx.form({ allowedDomains: domains });
  const answer = await fx.post(form.slug, { headers: { ...JSON_ACCEPT, ...headers }, body: { name: "Ann" } });
  const body = (await answer.json()) as { error?: { code: string } };
  return {
    status: answer.status,
    code: body.error?.code ?? null,
    acao: answer.headers.get("access-control-allow-origin"),
    stored: (await fx.stored(form.id)).length,
  };
}

describe("allowedDomains patterns", () => {
  for (const [entry, origin, allowed] of PATTERNS) {
    test(`${entry} ${allowed ? "accepts" : "refuses"} a post from ${origin}`, async () => {
      const seen = await postFrom([entry], { origin });
      if (allowed) expect(seen).toEqual({ status: 200, code: null, acao: origin, stored: 1 });
      else expect(seen).toEqual({ status: 403, code: "origin_not_allowed", acao: null, stored: 0 });
    });
  }

  test("several entries: any one of them admits the page", async () => {
    expect(await postFrom(["example.com", "*.example.org"], { origin: "https://www.example.org" })).toMatchObject({ status: 200, stored: 1 });
  });
});

describe("where the page's address comes from", () => {
  test("without Origin, the Referer decides (a browser's same-origin or older form post)", async () => {
    expect(await postFrom(["example.com"], { referer: "https://example.com/contact.html" })).toEqual({ status: 200, code: null, acao: null, stored: 1 });
    expect(await postFrom(["example.com"], { referer: "https://evil.test/example.com" })).toEqual({
      status: 403,
      code: "origin_not_allowed",
      acao: null,
      stored: 0,
    });
  });

  test("Origin wins over Referer", async () => {
    const seen = await postFrom(["example.com"], { origin: "https://evil.test", referer: "https://example.com/contact.html" });
    expect(seen).toEqual({ status: 403, code: "origin_not_allowed", acao: null, stored: 0 });
  });

  test("with allowedDomains set, a request with neither Origin nor Referer is refused", async () => {
    expect(await postFrom(["example.com"], {})).toEqual({ status: 403, code: "origin_not_allowed", acao: null, stored: 0 });
  });

  test("without allowedDomains, any page and no page at all may post", async () => {
    expect(await postFrom([], {})).toEqual({ status: 200, code: null, acao: null, stored: 1 });
    expect(await postFrom([], { origin: "https://anywhere.test" })).toEqual({ status: 200, code: null, acao: "https://anywhere.test", stored: 1 });
  });
});

describe("CORS preflight", () => {
  const preflight = (slug: string, origin: string, path: "/f" | "/api/f" = "/f") =>
    fx.post(slug, {
      method: "OPTIONS",
      path,
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type, accept" },
    });

  test("an allowed origin gets its own origin back, POST and the asked headers", async () => {
    const form = await fx.form({ allowedDomains: ["*.example.com"] });
    for (const path of ["/f", "/api/f"] as const) {
      const answer = await preflight(form.slug, "https://www.example.com", path);
      expect(answer.status).toBeOneOf([200, 204]);
      expect({
        acao: answer.headers.get("access-control-allow-origin"),
        methods: answer.headers.get("access-control-allow-methods"),
        headers: answer.headers.get("access-control-allow-headers")?.toLowerCase(),
        vary: answer.headers.get("vary"),
      }).toEqual({
        acao: "https://www.example.com",
        methods: expect.stringContaining("POST"),
        headers: expect.stringContaining("content-type"),
        vary: "Origin",
      });
    }
  });

  test("a form without allowedDomains admits any origin", async () => {
    const form = await fx.form();
    const answer = await preflight(form.slug, "https://static-site.test");
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://static-site.test");
  });

  test("a refused origin gets no Access-Control-Allow-Origin", async () => {
    const form = await fx.form({ allowedDomains: ["example.com"] });
    const answer = await preflight(form.slug, "https://evil.test");
    expect(answer.headers.get("access-control-allow-origin")).toBeNull();
    await expectJsonError(answer, 403, "origin_not_allowed");
  });

  test("errors to an allowed origin carry CORS headers, so fetch() can read why", async () => {
    const form = await fx.form({ allowedDomains: ["example.com"] });
    const answer = await fx.post(form.slug, { headers: { ...JSON_ACCEPT, origin: "https://example.com" }, body: { _subject: "only special" } });
    expect(answer.headers.get("access-control-allow-origin")).toBe("https://example.com");
    await expectJsonError(answer, 400, "empty_submission");
  });
});

test("a form with allowedDomains takes posts from its own page at formsvc's address, without the owner listing it", async () => {
  const form = await fx.form({
    allowedDomains: ["example.com"],
    fields: [{ name: "email", type: "email", required: true }],
    page: { enabled: true, title: "Write to us" },
  });
  // What a browser sends from the form's page: the page's origin and address.
  const fromPage = { origin: BASE, referer: `${BASE}/f/${form.slug}`, "content-type": "application/x-www-form-urlencoded", accept: "text/html" };
  const answer = await fx.post(form.slug, { headers: fromPage, body: "email=ann%40example.com" });
  expect({ status: answer.status, location: answer.headers.get("location") }).toEqual({ status: 303, location: `${BASE}/f/${form.slug}/thanks` });
  expect((await fx.stored(form.id)).map((s) => s.data)).toEqual([{ email: "ann@example.com" }]);
  // Another site is refused as before.
  const elsewhere = await postFrom(["example.com"], { origin: "https://evil.example" });
  expect(elsewhere).toEqual({ status: 403, code: "origin_not_allowed", acao: null, stored: 0 });
});
