import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, expectAccessible, OWNER, screenshot, setUp, setupLink, signIn, startDashboard, WAIT } from "./dashboard-support.ts";

// The owner's whole day in a real Chromium against a real `formsvc serve`: set up, make a form, put it on a
// site, read and sort the submissions, download them, make and revoke a key, delete the form.

// Each step drives a real browser through several pages.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let site: ReturnType<typeof Bun.serve>;
let siteUrl: string;
let browser: BrowserContext;
let page: Page;
let csp: string[];
let snippet = "";
let formPath = "";

beforeAll(async () => {
  dashboard = await startDashboard({ csp: true });
  ({ server, browser, page, csp } = dashboard);
  // A static site on another origin, serving whatever snippet the owner pasted.
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

/** Posts a submission as a site's fetch() would. */
async function post(slug: string, data: Record<string, unknown>): Promise<string> {
  const answer = await fetch(`${server.url}/f/${slug}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json", origin: siteUrl },
    body: JSON.stringify(data),
  });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

const filterLink = (name: string) => page.locator("nav.filters").getByRole("link", { name, exact: true });
const rowTexts = () => page.locator("ul.inbox li .preview").allTextContents();

describe("the dashboard, as a new owner uses it", () => {
  test("the setup link serve printed makes the first user and signs in, on an empty forms page", async () => {
    const link = await setupLink(server);
    await page.goto(link);
    await expectAccessible(page);
    await screenshot(page, "setup");
    await setUp(page, link);
    expect(await page.locator("h1").textContent()).toBe("Forms");
    expect(await page.locator(".empty").textContent()).toContain("No forms yet");
    await expectAccessible(page);
  });

  test("creating a form: an error shows beside the field, then the form is made and its settings show the snippet", async () => {
    await page.getByLabel("Name", { exact: true }).fill("Contact");
    await page.getByLabel("Slug (optional)").fill("No Spaces Allowed");
    await page.getByRole("button", { name: "Create form" }).click();
    expect(await page.locator("#f-slug-error").textContent()).toBe(
      "slug must be 3 to 64 lowercase letters, digits and dashes, starting with a letter or digit.",
    );
    // What was typed is kept.
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Contact");
    await page.getByLabel("Slug (optional)").fill("contact");
    await page.getByLabel("Notification email (optional)").fill("owner@example.com");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    expect(await page.locator(".notice").textContent()).toBe("Form created.");
    expect(await page.locator("#submit-url").textContent()).toBe(`${server.url}/f/contact`);
    snippet = (await page.locator("#snippet-html").textContent())!;
    expect(snippet).toContain(`action="${server.url}/f/contact"`);
    expect(await page.locator("#snippet-fetch").textContent()).toContain(`fetch("${server.url}/f/contact"`);
    // The script reveals the copy buttons.
    expect(await page.getByRole("button", { name: "Copy HTML" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await screenshot(page, "settings", { full: true });
  });

  test("settings: the service's error appears next to the field at fault, and a good change is saved", async () => {
    await page.getByLabel("Redirect URL").fill("javascript:alert(1)");
    await page.getByRole("button", { name: "Save settings" }).click();
    expect(await page.locator("#f-redirectUrl-error").textContent()).toBe("redirectUrl must be an absolute http(s) URL such as https://example.com/thanks.");
    await page.getByLabel("Redirect URL").fill("");
    await page.getByLabel("Allowed domains").fill(`127.0.0.1:${site.port}\nExample.com`);
    await Promise.all([page.waitForURL(/notice=saved&at=general#general$/, WAIT), page.getByRole("button", { name: "Save settings" }).click()]);
    expect(await page.getByLabel("Allowed domains").inputValue()).toBe(`127.0.0.1:${site.port}\nexample.com`);
  });

  test("the snippet pasted into a page of another origin takes a submission that the inbox shows", async () => {
    const visitor = await browser.newPage();
    try {
      await visitor.goto(siteUrl);
      await visitor.getByLabel("Email").fill("ann@example.com");
      await visitor.getByLabel("Message").fill("Hello from the site");
      await Promise.all([visitor.waitForURL(`${server.url}/thanks`, WAIT), visitor.getByRole("button", { name: "Send" }).click()]);
    } finally {
      await visitor.close();
    }
    await page.getByRole("link", { name: "Inbox" }).click();
    expect(await rowTexts()).toEqual(["ann@example.com · Hello from the site"]);
    await page.getByRole("link", { name: "Forms" }).first().click();
    const row = page.locator("tbody tr", { hasText: "Contact" });
    expect((await row.locator("td").allTextContents()).slice(0, 6)).toEqual(["Contact", "contact", "live", "yes", "1", "1"]);
    await expectAccessible(page);
    await screenshot(page, "forms");
  });

  test("the inbox: open one (read), star one, mark another spam, filter, search, since, pages", async () => {
    for (let i = 1; i <= 30; i++) await post("contact", { email: `person${i}@example.com`, message: `Message number ${i}` });
    await page.goto(`${server.url}${formPath}/submissions`);
    expect(await page.locator(".pages .muted").textContent()).toBe("1–25 of 31");
    await page.getByRole("link", { name: "Older →" }).click();
    expect(await page.locator(".pages .muted").textContent()).toBe("26–31 of 31");
    expect(new URL(page.url()).searchParams.get("page")).toBe("2");
    await page.goto(`${server.url}${formPath}/submissions`);
    await screenshot(page, "inbox");

    await page.locator("ul.inbox li", { hasText: "person30@" }).getByRole("link").click();
    expect(await page.locator("dl.data").textContent()).toContain("Message number 30");
    await screenshot(page, "submission");
    await Promise.all([page.waitForURL(/\/submissions\/sub_/, WAIT), page.getByRole("button", { name: "★ Star" }).click()]);
    expect(await page.getByRole("button", { name: "Unstar" }).isVisible()).toBe(true);
    await page.getByRole("link", { name: "← Back to the inbox" }).click();

    // A selection: two at once to spam.
    await page
      .getByRole("checkbox", { name: /Select submission/ })
      .nth(1)
      .check();
    await page
      .getByRole("checkbox", { name: /Select submission/ })
      .nth(2)
      .check();
    await page.getByRole("button", { name: "Spam", exact: true }).click();
    expect(await page.locator(".pages .muted").textContent()).toBe("1–25 of 29");

    await filterLink("Starred").click();
    expect(await rowTexts()).toEqual(["person30@example.com · Message number 30"]);
    await filterLink("Spam").click();
    expect(await rowTexts()).toEqual(["person29@example.com · Message number 29", "person28@example.com · Message number 28"]);
    await filterLink("Unread").click();
    expect(await page.locator(".pages .muted").textContent()).toBe("1–25 of 28");

    await filterLink("All").click();
    await page.getByLabel("Search").fill("NUMBER 1");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.locator(".pages .muted").textContent()).toBe("1–11 of 11");
    await page.getByLabel("Since").fill("yesterday");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.locator("#f-since-error").textContent()).toContain("since must be an ISO 8601 date or date-time");
    await page.getByLabel("Since").fill("1h");
    await page.getByRole("button", { name: "Search" }).click();
    expect(await page.locator(".pages .muted").textContent()).toBe("1–11 of 11");
    await expectAccessible(page);
  });

  test("downloads give the current view: CSV and NDJSON through the streamed export", async () => {
    await page.goto(`${server.url}${formPath}/submissions?filter=spam`);
    const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "CSV" }).click()]);
    expect(csv.suggestedFilename()).toBe("contact-submissions.csv");
    const text = await Bun.file((await csv.path())!).text();
    expect(
      text
        .trim()
        .split("\n")
        .map((line) => line.split(",").slice(2).join(",")),
    ).toEqual(["email,message", "person29@example.com,Message number 29", "person28@example.com,Message number 28"]);
    const [ndjson] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: "NDJSON" }).click()]);
    const lines = (await Bun.file((await ndjson.path())!).text())
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(lines.map((s) => [s.data.email, s.isSpam])).toEqual([
      ["person29@example.com", true],
      ["person28@example.com", true],
    ]);
    await page.goto(`${server.url}${formPath}/submissions?filter=spam`);
    await page
      .getByRole("checkbox", { name: /Select submission/ })
      .first()
      .check();
    await page.getByRole("button", { name: "Not spam" }).click();
    expect(await rowTexts()).toEqual(["person28@example.com · Message number 28"]);
  });

  test("keys: made with the key shown once, it works with the API, the list says when it was used, revoked it stops", async () => {
    await Promise.all([page.waitForURL(/\/dashboard\/keys$/, WAIT), page.getByRole("link", { name: "API keys" }).click()]);
    expect(await page.locator(".empty").textContent()).toContain("No keys yet");
    // The form select is for form keys only: the page's script (deferred) hides it once it runs.
    await page.getByLabel("Form (for a form key)").waitFor({ state: "hidden", ...WAIT });
    await page.getByLabel("Name").fill("laptop");
    // No permission ticked is refused, not read as every permission.
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.locator("fieldset .error").textContent()).toStartWith("Tick at least one permission");
    await page.getByRole("checkbox", { name: "read" }).check();
    await Promise.all([page.waitForURL(/\/dashboard\/keys$/, WAIT), page.getByRole("button", { name: "Create key" }).click()]);
    const key = (await page.locator("#new-key").textContent())!;
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{32,}$/);
    // The refused try above left the page at this same address, so the wait for it does not wait for the new
    // page's load: its script shows the copy button once it runs.
    await page.getByRole("button", { name: "Copy", exact: true }).waitFor({ state: "visible", ...WAIT });
    // How to connect an assistant, with the key just made in the configuration it takes.
    expect(JSON.parse((await page.locator("#mcp-http").textContent())!)).toEqual({
      mcpServers: { formsvc: { type: "http", url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${key}` } } },
    });
    await expectAccessible(page);
    await screenshot(page, "keys-created");
    const forms = await fetch(`${server.url}/api/forms`, { headers: { authorization: `Bearer ${key}` } });
    expect(forms.status).toBe(200);
    // Shown once, after the redirect: a reload shows the list with its prefix only, and makes no second key.
    await page.reload();
    expect(await page.content()).not.toContain(key);
    expect(await page.locator("tbody tr", { hasText: "laptop" }).count()).toBe(1);
    const row = page.locator("tbody tr", { hasText: "laptop" });
    expect(await row.locator("td").nth(6).locator("time").count()).toBe(1);
    page.once("dialog", (dialog) => void dialog.accept());
    await row.getByRole("button", { name: /Revoke/ }).click();
    await page.waitForURL(/notice=revoked/, WAIT);
    expect(await page.locator("tbody tr", { hasText: "laptop" }).locator(".badge").textContent()).toBe("revoked");
    expect((await fetch(`${server.url}/api/forms`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
  });

  test("deliveries: the notification emails with their state, and a retry", async () => {
    await page.goto(`${server.url}${formPath}/deliveries`);
    expect(await page.locator("#emails tbody tr").count()).toBe(25);
    expect(await page.locator("#emails tbody tr").first().locator(".state").textContent()).toBe("waiting to be sent");
    await page.locator("#emails tbody tr").first().getByRole("button", { name: "Send now" }).click();
    await page.waitForURL(/notice=retried/, WAIT);
    // This server has no mail server: the page says so, and does not claim the email goes out.
    expect(await page.locator(".notice").textContent()).toBe("The notification is due now, but mail is off: it is sent once the server runs with --mail-url.");
    expect(await page.locator("#emails .mail-off").textContent()).toStartWith("Mail is off: notification emails wait here, pending, and none is sent.");
    await expectAccessible(page);
    await screenshot(page, "deliveries");
  });

  test("a test submission from the settings lands in the inbox", async () => {
    await page.goto(`${server.url}${formPath}/settings`);
    await Promise.all([page.waitForURL(/notice=tested/, WAIT), page.getByRole("button", { name: "Send a test submission" }).click()]);
    expect((await rowTexts())[0]).toBe(`${OWNER.email} · A test submission sent from the dashboard.`);
  });

  test("at 390 px and in dark mode the pages still read, with no serious accessibility problem", async () => {
    await page.setViewportSize({ width: 390, height: 760 });
    await page.emulateMedia({ colorScheme: "dark" });
    try {
      const pages: [string, string][] = [
        ["forms", "/dashboard/forms"],
        ["inbox", `${formPath}/submissions`],
        ["settings", `${formPath}/settings`],
        ["keys", "/dashboard/keys"],
        ["account", "/dashboard/account"],
      ];
      for (const [name, path] of pages) {
        await page.goto(`${server.url}${path}`);
        // Nothing wider than the phone: no sideways scrolling of the page itself.
        expect({ path, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ path, width: 390 });
        await expectAccessible(page);
        await screenshot(page, `${name}-phone-dark`, { mobile: true, dark: true });
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.emulateMedia({ colorScheme: "light" });
    }
  });

  test("deleting a form needs its name typed; then it and its submissions are gone", async () => {
    await page.goto(`${server.url}${formPath}/settings`);
    await page.getByLabel(/Type the form's name/).fill("contact");
    await page.getByRole("button", { name: "Delete form" }).click();
    expect(await page.locator("#f-confirm-error").textContent()).toBe("Type the form's name exactly as shown to delete it.");
    await page.getByLabel(/Type the form's name/).fill("Contact");
    await Promise.all([page.waitForURL(/notice=deleted/, WAIT), page.getByRole("button", { name: "Delete form" }).click()]);
    expect(await page.locator(".empty").textContent()).toContain("No forms yet");
    expect(
      (await fetch(`${server.url}/f/contact`, { method: "POST", headers: { accept: "application/json" }, body: new URLSearchParams({ a: "b" }) })).status,
    ).toBe(404);
  });

  test("changing the password ends the other sessions; the new one signs in", async () => {
    const other = await launchBrowser();
    try {
      const elsewhere = await other.newPage();
      await signIn(elsewhere, server.url);
      await page.goto(`${server.url}/dashboard/account`);
      await page.getByLabel("Current password").fill(OWNER.password);
      await page.getByLabel("New password", { exact: true }).fill("a brand new passphrase");
      await page.getByLabel("New password again").fill("a brand new passphrase");
      await Promise.all([page.waitForURL(/notice=password/, WAIT), page.getByRole("button", { name: "Change password" }).click()]);
      await elsewhere.goto(`${server.url}/dashboard/forms`);
      expect(new URL(elsewhere.url()).pathname).toBe("/dashboard/signin");
      await signIn(elsewhere, server.url, { email: OWNER.email, password: "a brand new passphrase" });
    } finally {
      await other.close();
    }
  });

  test("no page broke the Content-Security-Policy", () => {
    expect(csp).toEqual([]);
  });
});
