import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// With mail on and a public address: the dashboard names the mail server (never its password), sends a test
// email, mails invitations, and each notification links to its submission's page.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let smtp: SmtpSink;
let page: Page;
let base = "";

beforeAll(async () => {
  smtp = await startSmtpSink();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const smtpUrl = smtp.url.replace("smtp://", "smtp://forms:hunter2secret@");
  dashboard = await startDashboard({ args: ["--port", String(port), "--base-url", base, "--smtp-url", smtpUrl, "--rate-limit", "0"] });
  ({ server, page } = dashboard);
});

afterAll(async () => {
  await smtp?.stop();
  await dashboard?.stop();
});

describe("mail on", () => {
  test("a notification links to the submission's page; the deliveries page names the server and sends a test email", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Contact");
    await page.getByLabel("Slug (optional)").fill("contact");
    await page.getByLabel("Notification email (optional)").fill("owner@example.com");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    const formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    expect(await page.locator("section#notifications").textContent()).toContain(`Mail goes out through ${smtp.url.replace("smtp://", "smtp://forms@")}.`);
    expect(await page.content()).not.toContain("hunter2secret");

    const posted = await fetch(`${base}/f/contact`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: '{"email":"ann@example.com"}',
    });
    const { id } = (await posted.json()) as { id: string };
    const [notification] = await smtp.waitFor(1);
    const link = `${base}${formPath}/submissions/${id}`;
    expect(notification!.text).toContain(`\nOpen it in the dashboard: ${link}\n`);
    await page.goto(link);
    expect(await page.locator("article h2").textContent()).toBe("ann@example.com");

    await page.goto(`${base}${formPath}/deliveries`);
    expect(await page.locator("#emails .mail-off").count()).toBe(0);
    await checkBothWidths(page, "deliveries-mail");
    await Promise.all([page.waitForURL(/notice=testemail$/, WAIT), page.getByRole("button", { name: "Send a test email" }).click()]);
    expect(await page.locator(".notice").textContent()).toBe("Test email sent to your address: check your inbox.");
    const [, test] = await smtp.waitFor(2);
    expect({ to: test!.rcptTos, subject: test!.subject }).toEqual({ to: ["owner@example.com"], subject: "formsvc test email" });
  });

  test("an invitation is mailed with its link, which is also shown once", async () => {
    await page.getByRole("link", { name: "Team" }).click();
    await page.getByLabel("Email").fill("ed@example.com");
    await page.getByRole("combobox", { name: "Role" }).selectOption("editor");
    await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
    expect(await page.locator("#new-invite-title + p").textContent()).toStartWith("It was mailed to ed@example.com.");
    const url = (await page.locator("#invite-url").textContent())!;
    const [, , invitation] = await smtp.waitFor(3);
    expect(invitation!.rcptTos).toEqual(["ed@example.com"]);
    expect(invitation!.text).toContain(`\n${url}\n`);
  });
});
