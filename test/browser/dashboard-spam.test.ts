import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, expectAccessible, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// The owner turns on the spam defence in the dashboard; a visitor's browser posts through the pasted snippet.
setDefaultTimeout(60_000);

let dashboard: Dashboard;
let server: ServerProcess;
let site: ReturnType<typeof Bun.serve>;
let siteUrl: string;
let browser: BrowserContext;
let page: Page;
let snippet = "";
let formPath = "";

beforeAll(async () => {
  dashboard = await startDashboard();
  ({ server, browser, page } = dashboard);
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body><h1>Contact us</h1>${snippet}</body></html>`, {
        headers: { "content-type": "text/html; charset=utf-8" },
      }),
  });
  siteUrl = `http://127.0.0.1:${site.port}`;
});

afterAll(async () => {
  site?.stop(true);
  await dashboard?.stop();
});

/** A visitor fills the pasted form and ticks the ALTCHA widget, which solves its challenge before Send is pressed. */
async function visit(message: string): Promise<void> {
  const visitor = await browser.newPage();
  try {
    await visitor.goto(siteUrl);
    await visitor.getByLabel("Email").fill("ann@example.com");
    await visitor.getByLabel("Message").fill(message);
    // The person ticks the widget's box; it then solves the challenge and fills its hidden field.
    await visitor.locator("altcha-widget").getByRole("checkbox").click({ force: true });
    await visitor.waitForFunction(() => (document.querySelector("input[name=altcha]") as HTMLInputElement | null)?.value, undefined, { timeout: 25_000 });
    await Promise.all([visitor.waitForURL(`${server.url}/thanks`, WAIT), visitor.getByRole("button", { name: "Send" }).click()]);
  } finally {
    await visitor.close();
  }
}

test("the owner sets the ALTCHA captcha and a blocked word in the settings; errors show beside the field", async () => {
  await setUp(page, await setupLink(server));
  await page.getByLabel("Name", { exact: true }).fill("Contact");
  await page.getByLabel("Slug (optional)").fill("contact");
  await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
  formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
  await page.getByLabel(/^ALTCHA captcha/).check();
  await page.getByLabel("ALTCHA complexity").fill("5");
  await page.getByRole("button", { name: "Save spam settings" }).click();
  expect(await page.locator("#f-complexity-error").textContent()).toBe("captcha.complexity must be a whole number from 100 to 1000000.");
  await page.getByLabel("ALTCHA complexity").fill("300");
  await page.getByLabel("Blocked words and phrases").fill("casino\nfree money");
  await Promise.all([page.waitForURL(/notice=saved&at=spam#spam$/, WAIT), page.getByRole("button", { name: "Save spam settings" }).click()]);
  expect(await page.getByLabel("Blocked words and phrases").inputValue()).toBe("casino\nfree money");
  expect(await page.getByLabel(/^ALTCHA captcha/).isChecked()).toBe(true);
  snippet = (await page.locator("#snippet-html").textContent())!;
  expect(snippet).toContain(`<script async defer src="${server.url}/altcha.js" type="module"></script>`);
  expect(snippet).toContain(`<altcha-widget challenge="${server.url}/f/contact/altcha"></altcha-widget>`);
  expect(await page.locator("#snippet-fetch").textContent()).toContain('altcha: document.querySelector("input[name=altcha]").value');
  await page.locator("#spam").scrollIntoViewIfNeeded();
  await checkBothWidths(page, "settings-spam");
});

test("posts through the snippet pass the captcha; one with a blocked word is in the spam list with its reason, and Not spam moves it back", async () => {
  await visit("Hello from the site");
  await visit("Win at the casino tonight");
  await page.goto(`${server.url}${formPath}/submissions`);
  expect(await page.locator("ul.inbox li .preview").allTextContents()).toEqual(["ann@example.com · Hello from the site"]);
  await page.goto(`${server.url}${formPath}/submissions?filter=spam`);
  expect(await page.locator("ul.inbox li .reason").allTextContents()).toEqual([" (spam: the rule “Blocked words and phrases” matched)"]);
  await checkBothWidths(page, "inbox-spam");
  await page.locator("ul.inbox li a").first().click();
  expect(await page.locator("article p.muted").first().textContent()).toContain("spam: the rule “Blocked words and phrases” matched");
  await expectAccessible(page);
  await Promise.all([page.waitForLoadState(), page.getByRole("button", { name: "Not spam" }).click()]);
  await page.goto(`${server.url}${formPath}/submissions`);
  expect((await page.locator("ul.inbox li .preview").allTextContents()).toSorted()).toEqual([
    "ann@example.com · Hello from the site",
    "ann@example.com · Win at the casino tonight",
  ]);
});
