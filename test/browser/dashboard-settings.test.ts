import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Every setting of a form from the dashboard alone, in a real Chromium against a real `formsvc serve`: files
// taken from a real form and downloaded from the submission page, a webhook added here that a receiver on
// loopback gets signed, captcha and retention, the erasure of a person's data, and all of it in the activity log.

// Each step drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let site: ReturnType<typeof Bun.serve>;
let receiver: Receiver;
let browser: BrowserContext;
let page: Page;
let formPath = "";
let submitUrl = "";
// Bytes no text decoding would keep intact: every value 0–255, then a PDF-like header.
const UPLOAD = Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), Buffer.from("%PDF-1.4 formsvc test\n")]);

beforeAll(async () => {
  dashboard = await startDashboard({ args: ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-retry-scale", "0.001"] });
  ({ server, browser, page } = dashboard);
  receiver = startReceiver();
  // A site on another origin with a plain multipart form, as an owner would paste it.
  site = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Apply</title></head><body><form action="${submitUrl}" method="post" enctype="multipart/form-data">
<label>Email <input name="email" type="email"></label><label>CV <input name="cv" type="file"></label><button>Send</button></form></body></html>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      ),
  });
});

afterAll(async () => {
  site?.stop(true);
  receiver?.stop();
  await dashboard?.stop();
});

const section = (id: string) => page.locator(`section#${id}`);

describe("a form's settings, all from the dashboard", () => {
  test("files turned on in the settings; a file sent through a real form downloads from the submission page byte for byte", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Jobs");
    await page.getByLabel("Slug (optional)").fill("jobs");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    submitUrl = (await page.locator("#submit-url").textContent())!;
    expect(await section("files").textContent()).toContain(
      "Up to 10 files a submission, the whole post (its files and fields together) up to 1 MB (the server's --max-body). Files are kept",
    );
    await section("files").getByLabel("Accept file uploads").check();
    await Promise.all([page.waitForURL(/notice=saved&at=files#files$/, WAIT), section("files").getByRole("button", { name: "Save files" }).click()]);
    expect(await section("files").getByLabel("Accept file uploads").isChecked()).toBe(true);

    const visitor = await browser.newPage();
    try {
      await visitor.goto(`http://127.0.0.1:${site.port}/apply`);
      await visitor.getByLabel("Email").fill("ann@example.com");
      await visitor.getByLabel("CV").setInputFiles({ name: "cv.pdf", mimeType: "application/pdf", buffer: UPLOAD });
      await Promise.all([visitor.waitForURL(/\/thanks/, WAIT), visitor.getByRole("button", { name: "Send" }).click()]);
      // The thank-you page leads back to the site the visitor came from (as much of the address as the browser sends).
      expect(await visitor.getByRole("link", { name: "Go back" }).getAttribute("href")).toStartWith(`http://127.0.0.1:${site.port}/`);
    } finally {
      await visitor.close();
    }

    await page.goto(`${server.url}${formPath}/submissions`);
    expect(await page.locator("ul.inbox li .preview").allTextContents()).toEqual(["ann@example.com · cv.pdf"]);
    await page.locator("ul.inbox li a").first().click();
    expect(await page.locator("article h2").textContent()).toBe("ann@example.com");
    expect(await page.title()).toBe("ann@example.com: Jobs · formsvc");
    expect(await page.getByRole("link", { name: "Reply to ann@example.com" }).getAttribute("href")).toBe("mailto:ann@example.com?subject=Re%3A%20Jobs");
    expect(await page.locator("ul.files li").textContent()).toBe(`cv.pdf application/pdf · ${UPLOAD.length} bytes`);
    const [download] = await Promise.all([page.waitForEvent("download", WAIT), page.getByRole("link", { name: "cv.pdf" }).click()]);
    expect(download.suggestedFilename()).toBe("cv.pdf");
    expect(Buffer.from(readFileSync((await download.path())!)).equals(UPLOAD)).toBe(true);
    await checkBothWidths(page, "submission-file");
  });

  test("a webhook added here gets a signed event at a receiver on loopback; its secret shows once; a delivery is sent again", async () => {
    await page.goto(`${server.url}${formPath}/settings`);
    await section("webhooks").getByLabel("Address").fill(`${receiver.url}/hooks`);
    await section("webhooks").getByLabel("Description (optional)").fill("CRM");
    await Promise.all([
      page.waitForURL(/notice=webhook&at=webhooks#webhooks$/, WAIT),
      section("webhooks").getByRole("button", { name: "Add webhook" }).click(),
    ]);
    const secret = (await page.locator("#webhook-secret").textContent())!;
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{32,}$/);
    await checkBothWidths(page, "settings-webhooks");
    await page.reload();
    expect(await page.locator("#webhook-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await Promise.all([page.waitForURL(/notice=testevent&at=webhooks#webhooks$/, WAIT), page.getByRole("button", { name: "Send a test event" }).click()]);
    const [call] = await receiver.waitFor(1);
    const event = new Webhook(secret).verify(call!.body, call!.headers) as {
      type: string;
      data: { form: { name: string }; submission: { data: Record<string, string> } };
    };
    expect({ type: event.type, form: event.data.form.name, message: event.data.submission.data.message }).toEqual({
      type: "submission.created",
      form: "Jobs",
      message: "A test submission sent from the dashboard.",
    });

    // The receiver has the call; the sender records the attempt a moment later: the page is read again until it shows.
    const deadline = Date.now() + WAIT.timeout;
    let succeeded = 0;
    while (succeeded === 0 && Date.now() < deadline) {
      await page.goto(`${server.url}${formPath}/deliveries`);
      succeeded = await page.locator("#webhooks .state.succeeded").count();
    }
    expect(succeeded).toBeGreaterThan(0);
    await checkBothWidths(page, "deliveries-webhooks");
    await Promise.all([
      page.waitForURL(/notice=redelivered/, WAIT),
      page
        .locator("#webhooks")
        .getByRole("button", { name: /Send again/ })
        .first()
        .click(),
    ]);
    const [, again] = await receiver.waitFor(2);
    expect(again!.headers["webhook-id"]).toBe(call!.headers["webhook-id"]);

    await page.goto(`${server.url}${formPath}/settings#webhooks`);
    page.once("dialog", (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(/notice=rotated&at=webhooks#webhooks$/, WAIT), page.getByRole("button", { name: /^Rotate secret of / }).click()]);
    const rotated = (await page.locator("#webhook-secret").textContent())!;
    expect(rotated).not.toBe(secret);
    page.once("dialog", (dialog) => void dialog.accept());
    await Promise.all([
      page.waitForURL(/notice=webhookdeleted&at=webhooks#webhooks$/, WAIT),
      page.getByRole("button", { name: `Delete ${receiver.url}/hooks` }).click(),
    ]);
    expect(await section("webhooks").locator(".empty").textContent()).toBe("No webhooks yet.");
  });

  test("captcha and retention are set here; a refused value shows beside its field; the captcha secret is never shown", async () => {
    await section("captcha").getByLabel("Captcha provider").selectOption("turnstile");
    await section("captcha").getByLabel("Secret key").fill("0x4AAAAAAAsecret");
    await Promise.all([page.waitForURL(/notice=saved&at=captcha#captcha$/, WAIT), section("captcha").getByRole("button", { name: "Save captcha" }).click()]);
    expect(await section("captcha").getByLabel("Captcha provider").inputValue()).toBe("turnstile");
    expect(await page.content()).not.toContain("0x4AAAAAAAsecret");

    await section("retention").getByLabel("Keep submissions for (days)").fill("0");
    await section("retention").getByRole("button", { name: "Save retention" }).click();
    expect(await page.locator("#f-retentionDays-error").textContent()).toContain("retentionDays");
    await section("retention").getByLabel("Keep submissions for (days)").fill("90");
    await section("retention").getByLabel("Keep spam for (days)").fill("");
    await Promise.all([
      page.waitForURL(/notice=saved&at=retention#retention$/, WAIT),
      section("retention").getByRole("button", { name: "Save retention" }).click(),
    ]);
    expect(await section("retention").getByLabel("Keep submissions for (days)").inputValue()).toBe("90");
    expect(await section("retention").getByLabel("Keep spam for (days)").inputValue()).toBe("");
    expect(await section("notifications").locator(".mail-off").textContent()).toStartWith("Mail is off:");
    await checkBothWidths(page, "settings");
  });

  test("a person's data: a dry run shows what would go, then it is erased; the activity log shows every change", async () => {
    await page.getByRole("link", { name: "Erase data" }).click();
    await page.getByLabel("Email address").fill("ANN@example.com");
    await page.getByRole("button", { name: "Show what would be erased" }).click();
    expect(await page.locator("#result-title").textContent()).toBe("1 submission of ANN@example.com would be erased");
    expect(await page.locator("tbody tr").allInnerTexts()).toEqual([expect.stringMatching(/^Jobs \(live\)\s+1$/)]);
    await checkBothWidths(page, "erase");
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Erase this submission" }).click();
    await page.locator("#result-title", { hasText: "erased" }).waitFor(WAIT);
    expect(await page.locator("#result-title").textContent()).toBe("1 submission of ANN@example.com erased");

    await page.getByRole("link", { name: "Activity" }).click();
    const summaries = await page.locator("tbody tr .summary").allTextContents();
    expect(summaries.slice(0, 9)).toEqual([
      "owner@example.com erased 1 submission of one person in 1 form.",
      'owner@example.com changed "Jobs": submissions kept 90 days, spam kept for ever.',
      'owner@example.com changed "Jobs": captcha turnstile.',
      `owner@example.com removed the webhook to ${new URL(receiver.url).host} from "Jobs".`,
      `owner@example.com rotated the secret of the webhook to ${new URL(receiver.url).host} on "Jobs".`,
      `owner@example.com added a standard webhook to ${new URL(receiver.url).host} on "Jobs".`,
      'owner@example.com changed "Jobs": file uploads on.',
      'owner@example.com created live form "Jobs".',
      "owner@example.com set up the first user, owner@example.com, as owner.",
    ]);
  });
});
