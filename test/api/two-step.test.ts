import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";

// Two-step sign-in over the dashboard's HTTP, in-process: set-up, the second page, replayed and recovery codes,
// and wrong codes counted as wrong passwords are.

let t: TestApp;
let accountId: string;
const PASSWORD = "a long enough password";

beforeAll(async () => {
  t = await testApp();
  accountId = (await t.account("mine")).id;
});
afterAll(() => t.close());

/** A browser of its own: its cookies, its address. */
function browser(ip: string) {
  const jar = new Map<string, string>();
  const send = async (method: string, path: string, fields?: Record<string, string>) => {
    const headers: Record<string, string> = { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "), origin: BASE };
    if (fields) headers["content-type"] = "application/x-www-form-urlencoded";
    const answer = await t.app.fetch(new Request(`${BASE}${path}`, { method, headers, body: fields ? new URLSearchParams(fields) : undefined }), { ip });
    for (const line of answer.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = pair!.split("=") as [string, string];
      if (value === "") jar.delete(name);
      else jar.set(name, value);
    }
    return { status: answer.status, location: answer.headers.get("location"), text: await answer.text() };
  };
  const presession = () => jar.get("formsvc_presession") ?? "";
  return {
    jar,
    get: (path: string) => send("GET", path),
    post: send.bind(null, "POST"),
    /** The sign-in page, then email and password. */
    async password(email: string, password = PASSWORD) {
      await send("GET", "/dashboard/signin");
      return send("POST", "/dashboard/signin", { _presession: presession(), email, password });
    },
    code: (code: string) => send("POST", "/dashboard/signin/code", { _presession: presession(), code }),
    csrf: (html: string) => /name="_csrf" value="(\w+)"/.exec(html)![1]!,
  };
}

/** A user with two-step sign-in turned on through the Account page: the secret the page showed and the recovery codes. */
async function withTwoStep(email: string, ip: string) {
  const user = await t.services.users.create(accountId, email, PASSWORD);
  const b = browser(ip);
  expect((await b.password(email)).location).toBe("/dashboard/forms");
  const setup = await b.get("/dashboard/account/two-step");
  const uri = /<code id="totp-uri">([^<]+)<\/code>/.exec(setup.text)![1]!.replaceAll("&amp;", "&");
  const secret = new URL(uri).searchParams.get("secret")!;
  const totp = new TOTP({ secret: Secret.fromBase32(secret) });
  const wrong = await b.post("/dashboard/account/two-step/enable", { _csrf: b.csrf(setup.text), code: totp.generate({ timestamp: Date.now() + 300_000 }) });
  expect(wrong.status).toBe(400);
  expect((await t.services.twoStep.status(user.id)).on).toBe(false);
  const on = await b.post("/dashboard/account/two-step/enable", { _csrf: b.csrf(setup.text), code: totp.generate() });
  expect(on.status).toBe(200);
  const codes = [...on.text.matchAll(/<li><code>([0-9a-z]{5}-[0-9a-z]{5})<\/code><\/li>/g)].map((m) => m[1]!);
  return { user, uri, secret, totp, codes };
}

describe("two-step sign-in", () => {
  test("set-up shows an otpauth address with a 160-bit secret and turns on only after a correct code, with 10 recovery codes", async () => {
    const { uri, secret, codes, user } = await withTwoStep("ada@example.com", "10.0.0.1");
    expect(uri).toStartWith("otpauth://totp/formsvc:ada%40example.com?");
    expect(new URL(uri).searchParams.get("issuer")).toBe("formsvc");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect((await t.services.twoStep.status(user.id)).on).toBe(true);
    const log = await t.services.activity.list(accountId, { limit: 50, after: null });
    expect(log.activity.map((a) => a.action)).toContain("user.2fa_on");
  });

  test("the password leads to the code page; a code is accepted once, a replay of it is refused", async () => {
    const { totp } = await withTwoStep("bob@example.com", "10.0.0.2");
    const b = browser("10.0.0.3");
    const first = await b.password("bob@example.com");
    expect(first.location).toBe("/dashboard/signin/code");
    expect(b.jar.has("formsvc_session")).toBe(false);
    expect((await b.get("/dashboard/forms")).location).toStartWith("/dashboard/signin");
    // The set-up used this step's code: the next step's is the one the app shows next.
    const code = totp.generate({ timestamp: Date.now() + 30_000 });
    const signedIn = await b.code(code);
    expect(signedIn.location).toBe("/dashboard/forms");
    expect((await b.get("/dashboard/forms")).status).toBe(200);

    const other = browser("10.0.0.4");
    expect((await other.password("bob@example.com")).location).toBe("/dashboard/signin/code");
    const replay = await other.code(code);
    expect(replay.status).toBe(401);
    expect(replay.text).toContain("used already");
    expect(other.jar.has("formsvc_session")).toBe(false);
  });

  test("a recovery code signs in once; used again it is refused", async () => {
    const { codes } = await withTwoStep("cy@example.com", "10.0.0.5");
    const b = browser("10.0.0.6");
    await b.password("cy@example.com");
    expect((await b.code(codes[3]!.toUpperCase())).location).toBe("/dashboard/forms");
    const again = browser("10.0.0.7");
    await again.password("cy@example.com");
    const refused = await again.code(codes[3]!);
    expect(refused.status).toBe(401);
    expect(again.jar.has("formsvc_session")).toBe(false);
    const log = await t.services.activity.list(accountId, { limit: 50, after: null });
    expect(log.activity.some((a) => a.action === "user.recovery_code" && a.actor === "user:cy@example.com")).toBe(true);
  });

  test("wrong codes count toward the sign-in slow-down, as wrong passwords do", async () => {
    const { totp } = await withTwoStep("di@example.com", "10.0.0.8");
    const b = browser("10.0.0.9");
    await b.password("di@example.com");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await b.code("000000")).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses[5]).toBe(429);
    // Even the right code waits now.
    const right = await b.code(totp.generate({ timestamp: Date.now() + 30_000 }));
    expect(right.status).toBe(429);
    expect(b.jar.has("formsvc_session")).toBe(false);
  });

  test("turning it off needs a current code; reset-2fa's service turns it off without one", async () => {
    const { totp, user } = await withTwoStep("ed@example.com", "10.0.0.10");
    const b = browser("10.0.0.11");
    await b.password("ed@example.com");
    await b.code(totp.generate({ timestamp: Date.now() + 30_000 }));
    const page = await b.get("/dashboard/account/two-step");
    const refused = await b.post("/dashboard/account/two-step/disable", { _csrf: b.csrf(page.text), code: "123456" });
    expect(refused.status).toBe(400);
    expect((await t.services.twoStep.status(user.id)).on).toBe(true);
    expect(await t.services.twoStep.reset("ED@example.com")).toBe(true);
    expect((await t.services.twoStep.status(user.id)).on).toBe(false);
    const plain = browser("10.0.0.12");
    expect((await plain.password("ed@example.com")).location).toBe("/dashboard/forms");
  });

  test("an account that requires it sends a member without it to the set-up after the password", async () => {
    const other = await t.account("strict");
    await t.services.users.create(other.id, "fay@example.com", PASSWORD);
    await t.services.twoStep.setRequired({ accountId: other.id, actor: "cli" }, true);
    const b = browser("10.0.0.13");
    expect((await b.password("fay@example.com")).location).toBe("/dashboard/forms");
    const forms = await b.get("/dashboard/forms");
    expect(forms.location).toBe("/dashboard/account/two-step?notice=required");
    const setup = await b.get("/dashboard/account/two-step?notice=required");
    expect(setup.text).toContain("requires two-step sign-in");
  });
});
