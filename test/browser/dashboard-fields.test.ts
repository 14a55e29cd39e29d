import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// A form's declared fields edited from the dashboard alone, in a real Chromium against a real `formsvc serve`,
// by plain form posts (the page's script plays no part): the same rules and messages as PATCH /api/forms/{id}, shown beside the input at
// fault; a post that breaks the saved rules is refused; the change is in the activity log.

// Each step drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;

beforeAll(async () => {
  dashboard = await startDashboard();
  ({ server, page } = dashboard);
});

afterAll(async () => {
  await dashboard?.stop();
});

const fields = () => page.locator("section#fields");
const row = (legend: string) => fields().locator("fieldset", { has: page.locator("legend", { hasText: legend }) });

/** A post to the form from a script, as a site's fetch() would send it. */
const post = (body: Record<string, unknown>) =>
  fetch(`${server.url}/f/signup`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify(body),
  }).then(async (answer) => ({ status: answer.status, body: (await answer.json()) as { errors?: { field?: string; code: string }[] } }));

describe("a form's fields, edited in the dashboard", () => {
  test("fields are added by plain posts; a refusal shows the API's message beside the input at fault", async () => {
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Sign-up");
    await page.getByLabel("Slug (optional)").fill("signup");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    expect(await fields().locator("legend").allTextContents()).toEqual(["New field"]);

    await row("New field").getByLabel("Field name").fill("email");
    await row("New field").getByLabel("Type").selectOption("email");
    await row("New field").getByLabel("Required").check();
    await fields().getByRole("button", { name: "Add another field" }).click();
    // Nothing is saved yet: the typed row is kept, and a blank one follows it.
    expect(await fields().locator("legend").allTextContents()).toEqual(["New field", "New field"]);
    expect(await fields().locator("fieldset").first().getByLabel("Field name").inputValue()).toBe("email");
    const second = fields().locator("fieldset").nth(1);
    await second.getByLabel("Field name").fill("plan");
    await second.getByLabel("Label").fill("Plan");
    await second.getByLabel("Type").selectOption("select");
    await second.getByLabel("Pattern").fill("(");
    await fields().getByRole("button", { name: "Save fields" }).click();
    expect(await page.locator("#f-fields\\.1\\.pattern-error").textContent()).toBe(
      "fields[].pattern must be a regular expression as HTML's pattern attribute takes it.",
    );
    expect(await second.getByLabel("Pattern").getAttribute("aria-invalid")).toBe("true");

    await second.getByLabel("Pattern").fill("");
    await fields().getByRole("button", { name: "Save fields" }).click();
    expect(await second.locator(".notice.error").textContent()).toBe("A select field needs its options.");
    await second.getByLabel("Options").fill("Free\nPro\n");
    const otherFields = fields().getByLabel("Fields not declared here");
    const hint = await otherFields.getAttribute("aria-describedby");
    expect(await page.locator(`#${hint}`).textContent()).toContain("Applies once at least one field is declared above");
    await otherFields.selectOption("refuse");
    await Promise.all([page.waitForURL(/notice=saved&at=fields#fields$/, WAIT), fields().getByRole("button", { name: "Save fields" }).click()]);
    expect(await fields().locator("legend").allTextContents()).toEqual(["Field 1: email", "Field 2: plan", "New field"]);
    expect(await row("Field 2: plan").getByLabel("Options").inputValue()).toBe("Free\nPro");
    expect(await page.locator("#snippet-html").textContent()).toContain(
      '<select name="plan"><option></option><option>Free</option><option>Pro</option></select>',
    );
    await checkBothWidths(page, "settings-fields");

    expect(await post({ plan: "Gold", note: "hi" })).toEqual({
      status: 400,
      body: expect.objectContaining({
        errors: [
          { field: "email", code: "required", message: "email: fill this in." },
          { field: "plan", code: "invalid_option", message: "Plan: choose one of the options given." },
          { field: "note", code: "unknown_field", message: "note: this form has no such field." },
        ],
      }),
    });
    expect((await post({ email: "ann@example.com", plan: "Pro" })).status).toBe(200);
  });

  test("a field is removed; each save is in the activity log", async () => {
    await row("Field 2: plan").getByLabel("Remove this field when saving").check();
    await Promise.all([page.waitForURL(/notice=saved&at=fields#fields$/, WAIT), fields().getByRole("button", { name: "Save fields" }).click()]);
    expect(await fields().locator("legend").allTextContents()).toEqual(["Field 1: email", "New field"]);
    expect((await post({ email: "bob@example.com", plan: "Gold" })).status).toBe(400);

    await page.getByRole("link", { name: "Activity" }).click();
    expect((await page.locator("tbody tr .summary").allTextContents()).slice(0, 2)).toEqual([
      'owner@example.com changed the fields of "Sign-up": email.',
      'owner@example.com changed the fields of "Sign-up": email, plan, fields not declared refused.',
    ]);
  });
});
