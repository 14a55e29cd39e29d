import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { runCli } from "../helpers/cli.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, expectAccessible, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// The confirmation email in the dashboard's form settings, in a real Chromium: set, previewed from a sample
// submission, saved; then its entries on the deliveries page and the unconfirmed filter of the inbox.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let csp: string[];

beforeAll(async () => {
  dashboard = await startDashboard({ csp: true });
  ({ server, page, csp } = dashboard);
  await setUp(page, await setupLink(server));
});

afterAll(async () => {
  await dashboard?.stop();
});

test("the owner writes the email, previews it filled from a sample submission, saves it; refusals and unconfirmed ones show", async () => {
  const made = await runCli(["forms", "create", "--name", "Letters", "--slug", "letters", "--db", server.db, "--json"]);
  const formId = JSON.parse(made.stdout).id as string;
  await page.goto(`${server.url}/dashboard/forms/${formId}/settings`);
  const section = page.locator("section#confirmation");
  // The form has no name field yet: the preview says what the mail will, no "Hello ," and no made-up name.
  await Promise.all([page.waitForURL(/\/confirmation$/, WAIT), section.getByRole("button", { name: "Preview" }).click()]);
  expect(await page.locator("#confirmation-preview-text").textContent()).toStartWith("Hello there,\n\nthank you for writing to Letters.");
  await section.getByLabel("Text", { exact: true }).fill("Hello {{name}},\nwe got: {{message}}\n");
  await Promise.all([page.waitForURL(/\/confirmation$/, WAIT), section.getByRole("button", { name: "Preview" }).click()]);
  expect(await page.locator("#confirmation-preview-text").textContent()).toBe("Hello,\nwe got:\n");
  const fieldsFile = join(server.dir, "fields.json");
  writeFileSync(
    fieldsFile,
    JSON.stringify([
      { name: "email", type: "text" },
      { name: "name", type: "text" },
      { name: "message", type: "textarea" },
    ]),
  );
  expect((await runCli(["forms", "update", "letters", "--fields-file", fieldsFile, "--db", server.db])).code).toBe(0);
  await page.goto(`${server.url}/dashboard/forms/${formId}/settings`);
  await section.getByLabel("Send a confirmation email").check();
  await section.getByLabel("Subject").fill("Welcome to {{form}}, {{name}}");
  await section.getByLabel("Text", { exact: true }).fill("Hello {{name}},\nwe got: {{message}}\n");
  await section.getByLabel("From", { exact: true }).fill("Letters desk");
  await section.getByLabel(/Double opt-in/).check();
  await Promise.all([page.waitForURL(/\/confirmation$/, WAIT), section.getByRole("button", { name: "Preview" }).click()]);
  expect(await page.locator("#confirmation-preview-subject").textContent()).toBe("Welcome to Letters, Ada Lovelace");
  const previewed = (await page.locator("#confirmation-preview-text").textContent())!;
  expect(previewed).toStartWith("Hello Ada Lovelace,\nwe got: A question for Letters.\n\nConfirm your address by opening this link:\nhttp://");
  expect(await page.locator(".notice").first().textContent()).toContain("nothing was saved");
  expect(JSON.parse((await runCli(["forms", "get", "letters", "--db", server.db, "--json"])).stdout).confirmation).toBeNull();

  // A bad value is shown beside its field, the posted values kept.
  await page.locator("section#confirmation").getByLabel("Link valid for (days)").fill("45");
  await page.locator("section#confirmation").getByRole("button", { name: "Save confirmation email" }).click();
  expect(await page.locator("#f-optInDays-error").textContent()).toBe("confirmation.optInDays must be from 1 to 30.");
  expect(await page.locator("section#confirmation").getByLabel("Subject").inputValue()).toBe("Welcome to {{form}}, {{name}}");
  await page.locator("section#confirmation").getByLabel("Link valid for (days)").fill("3");
  await Promise.all([
    page.waitForURL(/\/settings\?notice=saved/, WAIT),
    page.locator("section#confirmation").getByRole("button", { name: "Save confirmation email" }).click(),
  ]);
  await expectAccessible(page);
  const saved = JSON.parse((await runCli(["forms", "get", "letters", "--db", server.db, "--json"])).stdout).confirmation;
  expect(saved).toMatchObject({ enabled: true, subject: "Welcome to {{form}}, {{name}}", fromName: "Letters desk", doubleOptIn: true, optInDays: 3 });

  for (const email of ["ann@example.com", "not an address"]) {
    const answer = await fetch(`${server.url}/f/letters`, {
      method: "POST",
      body: new URLSearchParams({ name: "Ann", email }),
      headers: { accept: "application/json" },
    });
    expect(answer.status).toBe(200);
  }
  await page.goto(`${server.url}/dashboard/forms/${formId}/submissions?filter=unconfirmed`);
  expect(await page.locator("ul.inbox li").count()).toBe(2);
  await page.goto(`${server.url}/dashboard/forms/${formId}/submissions`);
  expect(await page.locator("ul.inbox li").count()).toBe(0);
  await page.goto(`${server.url}/dashboard/forms/${formId}/deliveries`);
  const rows = await page.locator("table tbody tr").allTextContents();
  expect(rows.some((row) => row.includes("confirmation") && row.includes("ann@example.com"))).toBe(true);
  expect(rows.some((row) => row.includes("refused") && row.includes("no valid address in the field"))).toBe(true);
  expect(csp).toEqual([]);
});
