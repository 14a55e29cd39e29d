import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// The form's own page, set up from the dashboard alone in Chromium against a real `formsvc serve`: turned on,
// branded and given a language, previewed, shared (its link, a QR code, the embed snippet), and its views and
// conversion shown once a visitor came.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;

beforeAll(async () => {
  // Behind a proxy, as most are, so that the visitors below come from addresses of their own.
  dashboard = await startDashboard({ csp: true, args: ["--rate-limit", "0", "--trust-proxy"] });
  ({ server, page } = dashboard);
});

afterAll(async () => {
  await dashboard?.stop();
});

const section = () => page.locator("section#page");

describe("a form's page, from the dashboard", () => {
  test("turned on, branded and in German; its preview, link, QR code and embed snippet", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Contact");
    await page.getByLabel("Slug (optional)").fill("contact");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    expect(await section().getByRole("note").textContent()).toContain("declare them in the Fields section first");

    const field = page.locator("section#fields fieldset").first();
    await field.getByLabel("Field name").fill("email");
    await field.getByLabel("Hint").fill("We write back to this address.");
    await field.getByLabel("Type").selectOption("email");
    await field.getByLabel("Required").check();
    await Promise.all([
      page.waitForURL(/notice=saved&at=fields#fields$/, WAIT),
      page.locator("section#fields").getByRole("button", { name: "Save fields" }).click(),
    ]);

    // A bad colour is refused beside its input, what was typed kept.
    await section().getByLabel("Serve the form's page and its embed").check();
    await section().getByLabel("Title").fill("Write to us");
    await section().getByLabel("Accent colour").fill("blue");
    await section().getByRole("button", { name: "Save page" }).click();
    expect(await page.locator("#f-pageAccentColor-error").textContent()).toBe("page.accentColor must be a colour such as #0b5cad (#rgb or #rrggbb).");
    expect(await section().getByLabel("Title").inputValue()).toBe("Write to us");

    await section().getByLabel("Accent colour").fill("#0b5cad");
    await section().getByLabel("Thank-you message").fill("Danke! Wir melden uns.");
    await section().getByLabel("Language").selectOption("de");
    await Promise.all([page.waitForURL(/notice=saved&at=page#page$/, WAIT), section().getByRole("button", { name: "Save page" }).click()]);

    // The preview frames the page as a visitor will see it, in German.
    const preview = page.frameLocator("iframe.page-preview");
    expect(await preview.getByRole("heading", { level: 1 }).textContent()).toBe("Write to us");
    expect(await preview.getByRole("button").textContent()).toBe("Senden");
    expect(await preview.getByText("We write back to this address.").count()).toBe(1);

    const share = page.locator("section#snippet");
    expect(await share.locator("#page-link").getAttribute("href")).toBe(`${server.url}/f/contact`);
    expect(await share.locator("img.qr").evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await share.locator("#snippet-embed").textContent()).toBe(
      `<div data-formsvc="contact"></div>\n<script src="${server.url}/embed.js" async></script>`,
    );
    expect(await section().locator("#page-stats").textContent()).toBe("Last 30 days: 0 views, 0 submissions, conversion —.");
  });

  test("a link to the preview with words of its own, opened in the browser, shows the section and none of its words", async () => {
    const settings = new URL(page.url());
    const formPath = settings.pathname.replace(/\/settings$/, "");
    const words = new URLSearchParams({ pageTitle: "Your session has expired", pageDescription: "Sign in again at https://evil.example/login" });
    await page.goto(`${server.url}${formPath}/page/preview?${words}`);
    await page.waitForURL(`${server.url}${formPath}/settings#page`, WAIT);
    expect(await page.getByText("Your session has expired").count()).toBe(0);
    expect(await page.getByText("evil.example").count()).toBe(0);
    // The section's own preview, in its frame, is still the page as saved.
    const preview = page.frameLocator("iframe.page-preview");
    expect(await preview.getByRole("heading", { level: 1 }).textContent()).toBe("Write to us");
  });

  test("the settings page with the section, the link and the QR code: accessible, and nothing wider than a phone", async () => {
    await checkBothWidths(page, "dashboard-page");
    // axe reads the whole settings page and the framed preview twice: on a machine shared with other work, slow.
  }, 180_000);

  test("two visitors, one of them twice, and one submission: 2 views and a conversion of 50%", async () => {
    // Two visitors open the page (one of them twice); one sends the form.
    for (const address of ["198.51.100.1", "198.51.100.1", "198.51.100.2"]) {
      const answer = await fetch(`${server.url}/f/contact`, { headers: { accept: "text/html", "x-forwarded-for": address } });
      expect(answer.status).toBe(200);
    }
    const sent = await fetch(`${server.url}/f/contact`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/x-www-form-urlencoded" },
      body: "email=ada%40example.com",
    });
    expect(((await sent.json()) as { message: string }).message).toBe("Danke! Wir melden uns.");
    await page.reload();
    expect(await section().locator("#page-stats").textContent()).toBe("Last 30 days: 2 views, 1 submissions, conversion 50%.");
    expect(dashboard.csp).toEqual([]);
  });
});
