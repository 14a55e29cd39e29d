import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Secret, TOTP } from "otpauth";
import { type APIRequestContext, type Page, request } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, OWNER, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Two-step sign-in and the Sessions list in a real Chromium against a real `formsvc serve`: the owner scans
// (reads) the set-up's secret, turns it on with a code computed by a TOTP library, signs in again with the
// password and a code, and signs a second browser's session out.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let totp: TOTP;
let recovery: string[] = [];
/** The code that turned it on: used, so refused for the rest of its window. */
let firstCode = "";
const FIREFOX = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0";

beforeAll(async () => {
  dashboard = await startDashboard({ csp: true });
  ({ server, page } = dashboard);
  await setUp(page, await setupLink(server));
});

afterAll(async () => {
  await dashboard?.stop();
});

/** Signs in through the sign-in page up to the page after the password. */
async function password(to: RegExp): Promise<void> {
  await page.goto(`${server.url}/dashboard/signin`);
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await Promise.all([page.waitForURL(to, WAIT), page.getByRole("button", { name: "Sign in", exact: true }).click()]);
}

/** Enters a code on the second page and waits for where it leads. */
async function enterCode(code: string, to: RegExp): Promise<void> {
  await page.getByLabel("Code").fill(code);
  await Promise.all([page.waitForURL(to, WAIT), page.getByRole("button", { name: "Verify" }).click()]);
}

/** A browser of another kind (its own cookies and User-Agent) signed in with password and code. */
async function otherBrowser(code: string): Promise<APIRequestContext> {
  const other = await request.newContext({ baseURL: server.url, userAgent: FIREFOX, extraHTTPHeaders: { origin: server.url } });
  const signin = await (await other.get("/dashboard/signin")).text();
  const presession = /name="_presession" value="(\w+)"/.exec(signin)![1]!;
  const afterPassword = await other.post("/dashboard/signin", { form: { _presession: presession, email: OWNER.email, password: OWNER.password } });
  expect(afterPassword.url()).toEndWith("/dashboard/signin/code");
  const signedIn = await other.post("/dashboard/signin/code", { form: { _presession: presession, code } });
  expect(signedIn.url()).toEndWith("/dashboard/forms");
  return other;
}

describe("two-step sign-in", () => {
  test("set up from the Account page: the QR code shows, a wrong code is refused, a right one turns it on with 10 recovery codes", async () => {
    await page.goto(`${server.url}/dashboard/account`);
    await Promise.all([page.waitForURL(/\/two-step$/, WAIT), page.getByRole("link", { name: "Two-step sign-in" }).click()]);
    const qr = page.getByRole("img", { name: /QR code/ });
    await qr.waitFor(WAIT);
    expect(await qr.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    const uri = (await page.locator("#totp-uri").textContent())!;
    expect(uri).toStartWith("otpauth://totp/formsvc:owner%40example.com?");
    totp = new TOTP({ secret: Secret.fromBase32((await page.locator("#totp-secret").textContent())!) });
    expect(new URL(uri).searchParams.get("secret")).toBe(totp.secret.base32);
    await checkBothWidths(page, "two-step-setup");

    await page.getByLabel("Code from the app").fill(totp.generate({ timestamp: Date.now() - 10 * 60_000 }));
    await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
    await page.getByText("That code is not right").waitFor(WAIT);

    firstCode = totp.generate();
    await page.getByLabel("Code from the app").fill(firstCode);
    await page.getByRole("button", { name: "Turn on two-step sign-in" }).click();
    await page.getByRole("heading", { name: /your recovery codes/ }).waitFor(WAIT);
    recovery = (await page.locator("#recovery-codes code").allTextContents()).map((c) => c.trim());
    expect(recovery).toHaveLength(10);
    await checkBothWidths(page, "two-step-codes");
  });

  test("the password leads to a second page; the next code signs in, a recovery code works once", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/signin/, WAIT);
    await password(/\/dashboard\/signin\/code$/);
    await checkBothWidths(page, "two-step-code");
    // The code that turned it on is used: typed again, it is refused. The app's next one signs in.
    await enterCode(firstCode, /\/dashboard\/signin\/code$/);
    await page.getByText("used already").waitFor(WAIT);
    await enterCode(totp.generate({ timestamp: Date.now() + 30_000 }), /\/dashboard\/forms$/);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/signin/, WAIT);
    await password(/\/dashboard\/signin\/code$/);
    await enterCode(recovery[0]!, /\/dashboard\/forms$/);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/signin/, WAIT);
    await password(/\/dashboard\/signin\/code$/);
    await enterCode(recovery[0]!, /\/dashboard\/signin\/code$/);
    await page.getByText("not right").waitFor(WAIT);
    await enterCode(recovery[1]!, /\/dashboard\/forms$/);
    await page.goto(`${server.url}/dashboard/account/two-step`);
    await page.getByText("Recovery codes left: 8 of 10").waitFor(WAIT);
  });

  test("Sessions lists each browser with its address and signs another one out", async () => {
    // A recovery code: the app's next code may be the one this browser used a moment ago.
    const other = await otherBrowser(recovery[2]!);
    await page.goto(`${server.url}/dashboard/account/sessions`);
    const rows = page.getByRole("region", { name: "Sessions" }).getByRole("row");
    await page.getByText("Firefox on Windows").waitFor(WAIT);
    await page.getByText(/Headless Chrome on Linux \(this browser\)/).waitFor(WAIT);
    expect(await page.getByRole("cell", { name: "127.0.0.1" }).count()).toBeGreaterThanOrEqual(2);
    await checkBothWidths(page, "sessions");
    const firefox = rows.filter({ hasText: "Firefox on Windows" });
    await Promise.all([page.waitForURL(/notice=sessionended/, WAIT), firefox.getByRole("button", { name: "Sign out" }).click()]);
    expect(await page.getByText("Firefox on Windows").count()).toBe(0);
    const after = await other.get("/dashboard/forms");
    expect(after.url()).toContain("/dashboard/signin");
    await other.dispose();
  });

  test("turning it off needs a current code; then the password alone signs in", async () => {
    await page.goto(`${server.url}/dashboard/account/two-step`);
    await page.getByLabel("Current code").fill("000000");
    await page.getByRole("button", { name: "Turn off two-step sign-in" }).click();
    await page.getByText("That code is not right").waitFor(WAIT);
    await page.getByLabel("Current code").fill(recovery[3]!);
    await Promise.all([page.waitForURL(/notice=twostepoff/, WAIT), page.getByRole("button", { name: "Turn off two-step sign-in" }).click()]);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/dashboard\/signin/, WAIT);
    await password(/\/dashboard\/forms$/);
    expect(dashboard.csp).toEqual([]);
  });

  test("the Team page's checkbox requires it of every member: the owner is sent to the set-up first", async () => {
    await page.goto(`${server.url}/dashboard/team`);
    await page.getByRole("checkbox", { name: "Require two-step sign-in of every member" }).check();
    // The owner has it off: the save's answer already sends them to the set-up, and so does every other page.
    await Promise.all([page.waitForURL(/\/two-step\?notice=required/, WAIT), page.locator("#two-step").getByRole("button", { name: "Save" }).click()]);
    await page.goto(`${server.url}/dashboard/forms`);
    await page.waitForURL(/\/dashboard\/account\/two-step\?notice=required$/, WAIT);
    await page.getByText("requires two-step sign-in of every member").waitFor(WAIT);
  });
});
