import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setSystemTime, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { RateLimiter } from "../../src/http/rate-limit.ts";
import { BASE } from "../helpers/app.ts";
import { expectHtmlError, expectJsonError, publicFixture, type PublicFixture } from "./public-support.ts";

// 6 a minute is one token every 10 s; a burst of 3.
const PER_MINUTE = 6;
const BURST = 3;
const JSON_ACCEPT = { accept: "application/json" };
const START = new Date("2026-11-22T12:00:00.000Z");

let fx: PublicFixture;
beforeAll(async () => {
  fx = await publicFixture({ rateLimit: PER_MINUTE, rateBurst: BURST, maxBody: 1024 });
});
afterAll(() => fx.close());
// The clock stands still unless a test moves it, so the bucket's arithmetic is exact.
beforeEach(() => setSystemTime(START));
afterEach(() => setSystemTime());

const advance = (ms: number) => setSystemTime(new Date(Date.now() + ms));

/** Posts `count` times and returns the statuses. */
async function burst(slug: string, count: number, options: { ip?: string; headers?: Record<string, string> } = {}) {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await fx.post(slug, { ip: options.ip, headers: { ...JSON_ACCEPT, ...options.headers }, body: { n: i } });
    statuses.push(answer.status);
    await answer.body?.cancel();
  }
  return statuses;
}

describe("the token bucket", () => {
  test("a burst is accepted, then 429 rate_limited with Retry-After, and only the accepted are stored", async () => {
    const form = await fx.form();
    expect(await burst(form.slug, BURST)).toEqual([200, 200, 200]);
    const refused = await fx.post(form.slug, { headers: JSON_ACCEPT, body: { n: "over" } });
    expect(refused.headers.get("retry-after")).toBe("10");
    await expectJsonError(refused, 429, "rate_limited");
    const browser = await fx.post(form.slug, { body: new URLSearchParams({ n: "over" }) });
    expect(browser.headers.get("retry-after")).toBe("10");
    await expectHtmlError(browser, 429, [/try again in 10 seconds/]);
    expect((await fx.stored(form.id)).map((s) => s.data.n)).toEqual([0, 1, 2]);
  });

  test("the bucket refills at the configured rate, never above the burst", async () => {
    const form = await fx.form();
    expect(await burst(form.slug, BURST + 1)).toEqual([200, 200, 200, 429]);
    advance(9_000);
    const early = await fx.post(form.slug, { headers: JSON_ACCEPT, body: { n: "early" } });
    expect({ status: early.status, retryAfter: early.headers.get("retry-after") }).toEqual({ status: 429, retryAfter: "1" });
    advance(1_000);
    expect(await burst(form.slug, 2)).toEqual([200, 429]);
    advance(10 * 60_000);
    expect(await burst(form.slug, BURST + 1)).toEqual([200, 200, 200, 429]);
  });

  test("the bucket is per form: another form from the same address is unaffected", async () => {
    const [first, second] = [await fx.form(), await fx.form()];
    expect(await burst(first.slug, BURST + 1)).toEqual([200, 200, 200, 429]);
    expect(await burst(second.slug, BURST + 1)).toEqual([200, 200, 200, 429]);
  });

  test("the bucket is per address: another client of the same form is unaffected", async () => {
    const form = await fx.form();
    expect(await burst(form.slug, BURST + 1, { ip: "192.0.2.1" })).toEqual([200, 200, 200, 429]);
    expect(await burst(form.slug, BURST, { ip: "192.0.2.2" })).toEqual([200, 200, 200]);
    expect(await burst(form.slug, 1, { ip: "192.0.2.1" })).toEqual([429]);
    expect(await fx.stored(form.id)).toHaveLength(2 * BURST);
  });
});

describe("the rate limit in the order of checks", () => {
  test("with the bucket empty, 404, 403 inactive and 403 origin still come first; size and parse come after", async () => {
    const form = await fx.form({ allowedDomains: ["example.com"] });
    const site = { origin: "https://example.com" };
    expect(await burst(form.slug, BURST, { headers: site })).toEqual([200, 200, 200]);
    await expectJsonError(await fx.post("no-such-form", { headers: { ...JSON_ACCEPT, ...site }, body: { a: 1 } }), 404, "form_not_found");
    await expectJsonError(await fx.post(form.slug, { headers: { ...JSON_ACCEPT, origin: "https://evil.test" }, body: { a: 1 } }), 403, "origin_not_allowed");
    const tooLarge = { ...JSON_ACCEPT, ...site, "content-type": "text/plain" };
    const limited = await fx.post(form.slug, { headers: tooLarge, body: "x".repeat(4096) });
    // A fetch() caller on the allowed site can read the refusal and when to try again.
    expect({
      acao: limited.headers.get("access-control-allow-origin"),
      exposed: limited.headers.get("access-control-expose-headers"),
      retryAfter: limited.headers.get("retry-after"),
    }).toEqual({ acao: "https://example.com", exposed: "Retry-After, HX-Redirect, Idempotent-Replayed", retryAfter: "10" });
    await expectJsonError(limited, 429, "rate_limited");
    const inactive = await fx.form({ isActive: false });
    await expectJsonError(await fx.post(inactive.slug, { headers: JSON_ACCEPT, body: { a: 1 } }), 403, "form_inactive");
  });
});

describe("the client address", () => {
  test("without --trust-proxy, X-Forwarded-For is ignored: a client cannot claim new addresses", async () => {
    const form = await fx.form();
    const statuses: number[] = [];
    for (let i = 0; i < BURST + 2; i++) statuses.push(...(await burst(form.slug, 1, { ip: "192.0.2.9", headers: { "x-forwarded-for": `198.51.100.${i}` } })));
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  });

  test("with --trust-proxy, the address the proxy appended to X-Forwarded-For is the client's", async () => {
    const app = createApp({
      services: fx.t.services,
      maxBody: 1024,
      trustProxy: true,
      rateLimiter: new RateLimiter(PER_MINUTE, BURST),
      log: { request: () => {}, error: () => {} },
    });
    const form = await fx.form();
    const post = async (forwardedFor: string) => {
      const request = new Request(`${BASE}/f/${form.slug}`, {
        method: "POST",
        headers: { ...JSON_ACCEPT, "content-type": "application/json", "x-forwarded-for": forwardedFor },
        body: JSON.stringify({ via: forwardedFor }),
      });
      // Every request arrives from the proxy's socket address.
      return (await app.fetch(request, { ip: "10.0.0.1" })).status;
    };
    const one: number[] = [];
    // The left-hand entries are the client's own claims; only the right-most, the proxy's, counts.
    for (let i = 0; i < BURST + 1; i++) one.push(await post(`203.0.113.${i}, 198.51.100.7`));
    expect(one).toEqual([200, 200, 200, 429]);
    expect(await post("198.51.100.8")).toBe(200);
    expect(await post("198.51.100.7")).toBe(429);
  });
});

describe("--rate-limit 0", () => {
  test("turns the limit off", async () => {
    const unlimited = await publicFixture({ rateLimit: 0, rateBurst: 1 });
    try {
      const form = await unlimited.form();
      const statuses = [];
      for (let i = 0; i < 25; i++) statuses.push((await unlimited.post(form.slug, { headers: JSON_ACCEPT, body: { i } })).status);
      expect(new Set(statuses)).toEqual(new Set([200]));
      expect(await unlimited.stored(form.id)).toHaveLength(25);
    } finally {
      unlimited.close();
    }
  });
});
