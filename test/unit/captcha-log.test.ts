import { afterAll, expect, test } from "bun:test";
import { CAPTCHA_VERIFY_URLS, verifyCaptcha } from "../../src/services/spam/captcha.ts";

const SECRET = "0x4AAAAAAAsecret-of-the-form";
const TOKEN = "token-the-browser-sent";
const releases: (() => void)[] = [];
// A provider with one bad habit per path: an error status, an answer that is not JSON, JSON without success, no answer.
const provider = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/down") return new Response("upstream error", { status: 502 });
    if (path === "/html") return new Response("<html>maintenance</html>", { headers: { "content-type": "text/html" } });
    if (path === "/shapeless") return Response.json({ ok: true });
    if (path === "/good") return Response.json({ success: true });
    return new Promise<Response>((resolve) => releases.push(() => resolve(Response.json({ success: true }))));
  },
});
const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
const closedPort = closed.port;
closed.stop(true);
afterAll(() => {
  for (const release of releases.splice(0)) release();
  provider.stop(true);
});

/** The verdict and log lines of one verification against `url`, as turnstile. */
async function verifyAt(url: string) {
  const lines: string[] = [];
  const verdict = await verifyCaptcha("turnstile", SECRET, TOKEN, "203.0.113.7", {
    verifyUrls: { ...CAPTCHA_VERIFY_URLS, turnstile: url },
    timeoutMs: 300,
    log: (line) => lines.push(line),
  });
  return { verdict, lines };
}

test("a provider that cannot be asked is unverified, with one log line that names it and why, and no secret or token", async () => {
  const base = `http://127.0.0.1:${provider.port}`;
  const cases = [
    [`${base}/down`, "it answered HTTP 502"],
    [`${base}/html`, "its answer is not JSON"],
    [`${base}/shapeless`, "its answer has no true or false success"],
    [`${base}/hang`, "no answer within 300 ms"],
    [`http://127.0.0.1:${closedPort}/`, "it could not be reached"],
  ] as const;
  for (const [url, why] of cases) {
    const { verdict, lines } = await verifyAt(url);
    expect({ url, verdict, lines: lines.length }).toEqual({ url, verdict: "unverified", lines: 1 });
    expect(lines[0]).toStartWith(`captcha: turnstile could not verify a token (${why}`);
    expect(lines[0]).toEndWith("the submission is kept as spam (captcha_unverified)");
    expect(lines[0]).not.toContain(SECRET);
    expect(lines[0]).not.toContain(TOKEN);
  }
});

test("a provider that answers says passed, and nothing is logged", async () => {
  expect(await verifyAt(`http://127.0.0.1:${provider.port}/good`)).toEqual({ verdict: "passed", lines: [] });
});
