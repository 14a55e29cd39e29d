import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, csrfOf, type Dashboard, OWNER, setUp, setupLink, signIn, startDashboard, WAIT } from "./dashboard-support.ts";

// What a viewer sees, in a real Chromium against a real `formsvc serve`: every page of a form with something
// in it (a submission, a webhook and its delivery), and not one control that would change anything; a post
// forged by hand for each of those controls is refused on the server all the same, and changes nothing.

// Each step drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let receiver: Receiver;
let page: Page;
let formPath = "";
let submissionPath = "";
const PASSWORD = "a long enough password";

beforeAll(async () => {
  dashboard = await startDashboard({ args: ["--rate-limit", "0", "--webhooks-allow-private"] });
  ({ server, page } = dashboard);
  receiver = startReceiver();
});

afterAll(async () => {
  receiver?.stop();
  await dashboard?.stop();
});

/** Every control of the page's main part that would change something: post forms, their buttons, selections. */
const editControls = () =>
  page.evaluate(() =>
    [...document.querySelectorAll("main form, main button, main input, main select, main textarea")]
      .filter((element) => !element.closest('form[method="get"]') && !(element instanceof HTMLButtonElement && element.type === "button"))
      .map((element) => `${element.tagName.toLowerCase()} ${element.getAttribute("action") ?? element.getAttribute("name") ?? element.textContent?.trim()}`),
  );

/** A post made by hand with the session's own cookie and CSRF token, from the right origin: only the role stands in its way. */
async function forge(path: string, form: Record<string, string>): Promise<number> {
  const answer = await page.request.post(`${server.url}${path}`, {
    form: { _csrf: await csrfOf(page), ...form },
    headers: { origin: server.url },
    maxRedirects: 0,
  });
  return answer.status();
}

describe("a viewer", () => {
  test("the owner makes a form with a submission, a webhook and a delivery, and invites a viewer", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Contact");
    await page.getByLabel("Slug (optional)").fill("contact");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    await page.locator("section#fields").getByLabel("Field name").fill("email");
    await Promise.all([page.waitForURL(/notice=saved&at=fields#fields$/, WAIT), page.getByRole("button", { name: "Save fields" }).click()]);
    await page.locator("section#webhooks").getByLabel("Address").fill(`${receiver.url}/hooks`);
    await Promise.all([page.waitForURL(/notice=webhook&at=webhooks#webhooks$/, WAIT), page.getByRole("button", { name: "Add webhook" }).click()]);
    const posted = await fetch(`${server.url}/f/contact`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: '{"email":"ann@example.com"}',
    });
    submissionPath = `${formPath}/submissions/${((await posted.json()) as { id: string }).id}`;
    await receiver.waitFor(1);

    await page.getByRole("link", { name: "Team" }).click();
    await page.getByLabel("Email").fill("vi@example.com");
    await page.getByRole("combobox", { name: "Role" }).selectOption("viewer");
    await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
    const link = (await page.locator("#invite-url").textContent())!;
    await Promise.all([page.waitForURL(/\/dashboard\/signin/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
    await page.goto(link);
    await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await page.getByLabel("Password again").fill(PASSWORD);
    await Promise.all([page.waitForURL(/\/dashboard\/forms$/, WAIT), page.getByRole("button", { name: "Join and sign in" }).click()]);
  });

  test("reads every page of the form and finds no control that changes anything", async () => {
    const pages = [
      "/dashboard/forms",
      `${formPath}/submissions`,
      `${formPath}/submissions?filter=spam`,
      submissionPath,
      `${formPath}/settings`,
      `${formPath}/deliveries`,
    ];
    const seen: Record<string, string[]> = {};
    for (const path of pages) {
      await page.goto(`${server.url}${path}`);
      seen[path] = await editControls();
    }
    expect(seen).toEqual(Object.fromEntries(pages.map((path) => [path, []])));

    await page.goto(`${server.url}${formPath}/settings`);
    // What the settings are, as text: the general ones, the fields, the webhook.
    expect(await page.locator("section#general dd").allTextContents()).toEqual([
      "Contact",
      "contact",
      "none",
      "the thank-you page",
      "any site",
      "yes: the form takes submissions",
    ]);
    expect(await page.locator("section#fields tbody tr").allInnerTexts()).toEqual([expect.stringMatching(/^email\s+text\s*$/)]);
    expect(await page.locator("section#webhooks tbody tr").allInnerTexts()).toEqual([expect.stringContaining(`${receiver.url}/hooks`)]);
    expect(await page.locator("section#confirmation dd").allTextContents()).toEqual(["not sent"]);
    expect(await page.locator("section h2").allTextContents()).toEqual([
      "General",
      "Put it on your site",
      "Fields",
      "Page",
      "Captcha",
      "Spam",
      "Files",
      "Webhooks and channels",
      "Destinations",
      "Notifications",
      "Confirmation email",
      "Retention",
    ]);
    await checkBothWidths(page, "settings-viewer");
    await page.goto(`${server.url}${formPath}/submissions`);
    expect(await page.locator("ul.inbox li .preview").allTextContents()).toEqual(["ann@example.com"]);
    await checkBothWidths(page, "inbox-viewer");
  });

  test("a post forged for each of those controls is refused on the server, and nothing changes", async () => {
    await page.goto(`${server.url}${formPath}/deliveries`);
    const delivery = (await page.locator("#webhooks tbody a").first().getAttribute("href"))!;
    expect(delivery).toBe(submissionPath);
    const submissionId = submissionPath.split("/").pop()!;
    const forged = {
      fields: await forge(`${formPath}/settings/fields`, { "fields.0.name": "taken", "fields.0.type": "text" }),
      files: await forge(`${formPath}/settings/files`, { fileUploads: "true" }),
      star: await forge(`${formPath}/submissions/actions`, { ids: submissionId, action: "star" }),
      delete: await forge(`${formPath}/submissions/actions`, { ids: submissionId, action: "delete" }),
      webhook: await forge(`${formPath}/webhooks`, { url: `${receiver.url}/mallory` }),
      test: await forge(`${formPath}/test`, {}),
    };
    expect(forged).toEqual({ fields: 403, files: 403, star: 403, delete: 403, webhook: 403, test: 403 });

    await Promise.all([page.waitForURL(/\/dashboard\/signin/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
    await signIn(page, server.url, OWNER);
    await page.goto(`${server.url}${formPath}/settings`);
    expect(await page.locator("section#fields legend").allTextContents()).toEqual(["Field 1: email", "New field"]);
    expect(await page.locator("section#webhooks tbody tr").count()).toBe(1);
    await page.goto(`${server.url}${formPath}/submissions`);
    expect(await page.locator("ul.inbox li .preview").allTextContents()).toEqual(["ann@example.com"]);
    expect(await page.locator("ul.inbox li .star").allTextContents()).toEqual([""]);
    // The owner has the controls the viewer was not shown.
    expect(await editControls()).toContain(`form ${formPath}/submissions/actions`);
  });
});
