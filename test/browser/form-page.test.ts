import { afterAll, beforeAll, expect, test } from "bun:test";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { escapeHtml } from "../../src/http/pages.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { checkBothWidths, expectAccessible } from "./dashboard-support.ts";
import { type SiteRig, startSiteRig } from "./site-support.ts";

// The form's own page and the embed, as a visitor meets them in Chromium: with JavaScript and without it.
const WAIT = { timeout: 25_000 };
const FIELDS = [
  { name: "name", label: "Your name", type: "text", required: true, hint: "As you would like to be addressed." },
  { name: "email", label: "Email", type: "email", required: true },
  { name: "topic", label: "Topic", type: "select", options: ["Sales", "Support"] },
  { name: "message", label: "Message", type: "textarea", minLength: 20 },
  { name: "terms", label: "I agree to the terms", type: "checkbox", required: true },
];
const PAGE = {
  enabled: true,
  title: "Write to us",
  description: "We answer within a day.",
  thankYouMessage: "Thanks, we will write back.",
  accentColor: "#7fd1ae",
};

let rig: SiteRig;
let noScript: BrowserContext;

/** A page of another site: the embed of `slug` from the server, the form's page in a frame, or a plain form posting to it. */
function sitePage(url: URL): Response {
  const server = escapeHtml(url.searchParams.get("server") ?? "");
  const slug = escapeHtml(url.searchParams.get("slug") ?? "");
  const framed = `<h1>Our site</h1><iframe title="The form" src="${server}/f/${slug}" onload="document.body.dataset.framed = 'loaded'"></iframe>`;
  const body =
    url.pathname === "/framed.html"
      ? framed
      : url.pathname === "/embed.html"
        ? `<h1>Our site</h1><div data-formsvc="${slug}"${url.searchParams.has("lang") ? ` data-language="${escapeHtml(url.searchParams.get("lang")!)}"` : ""}></div><script src="${server}/embed.js" async></script>`
        : `<h1>Contact</h1><form action="${server}/f/${slug}" method="post"><label>Message <textarea name="message" id="message"></textarea></label><button>Send</button></form>`;
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title><style>h2, label { color: #c00; font-size: 40px; }</style></head><body><main>${body}</main></body></html>`;
  return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
}

beforeAll(async () => {
  rig = await startSiteRig(sitePage);
  noScript = await launchBrowser({ javaScriptEnabled: false });
}, 60_000);

afterAll(async () => {
  await noScript?.close();
  await rig?.stop();
});

const pageForm = (extra: Record<string, unknown> = {}) => rig.createForm({ fields: FIELDS, page: PAGE, ...extra });
const stored = async (formId: string) => (await rig.submissions(formId)).map((s) => s.data);

/**
 * What the visitor sees beside each field: its error line, whether the input is marked invalid, whether it is
 * described by its error, and its value (read with locators, which work with JavaScript off too).
 */
async function besideFields(root: Page | Locator) {
  const seen = [];
  for (const field of await root.locator(".formsvc-field").all()) {
    const input = field.locator("input, select, textarea").first();
    const error = field.locator(".formsvc-error");
    const errorId = (await error.getAttribute("id"))!;
    const shown = await error.isVisible();
    seen.push({
      field: await field.getAttribute("data-field"),
      error: shown ? await error.textContent() : null,
      invalid: (await input.getAttribute("aria-invalid")) === "true",
      describedByError: ((await input.getAttribute("aria-describedby")) ?? "").split(" ").includes(errorId),
      value: (await input.getAttribute("type")) === "checkbox" ? await input.isChecked() : await input.inputValue(),
    });
  }
  return seen;
}

/** The name of the input that has the focus. */
const focused = (page: Page) => page.locator(":focus").getAttribute("name");

/** Fills the form with one bad email and a short message. */
async function fillBadly(root: Page | Locator) {
  await root.getByLabel("Your name").fill("Ada Lovelace");
  await root.getByLabel("Email").fill("ada-at-example");
  await root.getByLabel("Topic").selectOption("Support");
  await root.getByLabel("Message").fill("Too short");
}

const EXPECTED_ERRORS = [
  { field: "name", error: null, invalid: false, describedByError: false, value: "Ada Lovelace" },
  { field: "email", error: "Email: enter an email address such as ann@example.com.", invalid: true, describedByError: true, value: "ada-at-example" },
  { field: "topic", error: null, invalid: false, describedByError: false, value: "Support" },
  { field: "message", error: "Message: enter at least 20 characters.", invalid: true, describedByError: true, value: "Too short" },
  { field: "terms", error: "I agree to the terms: check this box to go on.", invalid: true, describedByError: true, value: false },
];

test("with JavaScript: errors appear beside their fields without a reload, values kept, focus on the first; then the thank-you text in place", async () => {
  const form = await pageForm();
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    await checkBothWidths(page, "form-page");
    await fillBadly(page);
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 1));
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".formsvc-field[data-field=email] .formsvc-error:not([hidden])").waitFor(WAIT);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(1);
    expect(await besideFields(page)).toEqual(EXPECTED_ERRORS);
    expect(await focused(page)).toBe("email");
    await checkBothWidths(page, "form-page-errors");
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Message").fill("A question about the analytical engine.");
    await page.getByLabel("I agree to the terms").check();
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Thanks, we will write back.").waitFor(WAIT);
    expect(await page.locator("form").isHidden()).toBe(true);
    await checkBothWidths(page, "form-page-thanks");
  } finally {
    await page.close();
  }
  expect(await stored(form.id)).toEqual([
    { name: "Ada Lovelace", email: "ada@example.com", topic: "Support", message: "A question about the analytical engine.", terms: true },
  ]);
}, 60_000);

test("without JavaScript: the page comes back (400) with each error beside its field and every value kept; then the form's thank-you page", async () => {
  const form = await pageForm();
  const page = await noScript.newPage();
  try {
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    await fillBadly(page);
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Send" }).click()]);
    expect(answer?.status()).toBe(400);
    expect(await besideFields(page)).toEqual(EXPECTED_ERRORS);
    expect(await focused(page)).toBe("email");
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Message").fill("A question about the analytical engine.");
    await page.getByLabel("I agree to the terms").check();
    await Promise.all([page.waitForURL(`${rig.server.url}/f/${form.slug}/thanks`), page.getByRole("button", { name: "Send" }).click()]);
    expect(await page.textContent(".formsvc-thanks")).toBe("Thanks, we will write back.");
  } finally {
    await page.close();
  }
  expect(await stored(form.id)).toHaveLength(1);
}, 60_000);

test("the pages the server sends back without the page's script (errors, thank-you) are accessible and fit a phone", async () => {
  const form = await pageForm();
  const page = await rig.browser.newPage();
  try {
    // axe needs JavaScript: here only formsvc's own script is kept from the page, so what is checked is the server's HTML.
    await page.route("**/form-page.js", (route) => route.abort());
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    await fillBadly(page);
    await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Send" }).click()]);
    expect(await besideFields(page)).toEqual(EXPECTED_ERRORS);
    await checkBothWidths(page, "form-page-errors-no-script");
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Message").fill("A question about the analytical engine.");
    await page.getByLabel("I agree to the terms").check();
    await Promise.all([page.waitForURL(`${rig.server.url}/f/${form.slug}/thanks`), page.getByRole("button", { name: "Send" }).click()]);
    await checkBothWidths(page, "form-page-thanks-no-script");
  } finally {
    await page.close();
  }
}, 60_000);

test("ALTCHA is solved on the page, and the post is stored", async () => {
  const form = await pageForm({
    captcha: { provider: "altcha", complexity: 500 },
    fields: [{ name: "message", label: "Message", type: "textarea", required: true }],
  });
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    await page.getByLabel("Message").fill("Hello from a person");
    await page.waitForFunction(() => (document.querySelector("input[name=altcha]") as HTMLInputElement | null)?.value, undefined, WAIT);
    await expectAccessible(page);
    await page.getByRole("button", { name: "Send" }).click();
    await page.getByText("Thanks, we will write back.").waitFor(WAIT);
  } finally {
    await page.close();
  }
  expect(await stored(form.id)).toEqual([{ message: "Hello from a person" }]);
}, 60_000);

test("the embed on another site's page: in a shadow root, errors beside fields, then the thank-you text in place", async () => {
  const form = await pageForm();
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.siteUrl}/embed.html?server=${encodeURIComponent(rig.server.url)}&slug=${form.slug}`);
    const embed = page.locator(`[data-formsvc="${form.slug}"]`);
    await embed.getByRole("button", { name: "Send" }).waitFor(WAIT);
    // In an open shadow root, where the site's styles (red 40 px labels) do not reach.
    expect(await embed.evaluate((host) => host.shadowRoot?.mode)).toBe("open");
    expect(await embed.getByText("Your name").evaluate((label) => getComputedStyle(label).color)).not.toBe("rgb(204, 0, 0)");
    await checkBothWidths(page, "embed");
    await fillBadly(embed);
    await embed.getByRole("button", { name: "Send" }).click();
    await embed.locator(".formsvc-field[data-field=email] .formsvc-error:not([hidden])").waitFor(WAIT);
    expect(await besideFields(embed)).toEqual(EXPECTED_ERRORS);
    expect(page.url()).toStartWith(rig.siteUrl);
    await embed.getByLabel("Email").fill("ada@example.com");
    await embed.getByLabel("Message").fill("A question about the analytical engine.");
    await embed.getByLabel("I agree to the terms").check();
    await embed.getByRole("button", { name: "Send" }).click();
    await embed.getByText("Thanks, we will write back.").waitFor(WAIT);
    await expectAccessible(page);
  } finally {
    await page.close();
  }
  expect(await stored(form.id)).toHaveLength(1);
}, 60_000);

test("the form's page in a frame of another site is not shown there (the embed is the way onto other sites)", async () => {
  const form = await pageForm();
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.siteUrl}/framed.html?server=${encodeURIComponent(rig.server.url)}&slug=${form.slug}`);
    // The frame's load event fires for a refused frame too: then what it shows is final.
    await page.locator("body[data-framed=loaded]").waitFor({ ...WAIT, state: "attached" });
    const frame = page.frameLocator("iframe");
    expect(await frame.getByRole("button", { name: "Send" }).count()).toBe(0);
    expect(await frame.getByText("Write to us").count()).toBe(0);
  } finally {
    await page.close();
  }
  // On its own, the page is there.
  const own = await rig.browser.newPage();
  try {
    await own.goto(`${rig.server.url}/f/${form.slug}`);
    await own.getByRole("button", { name: "Send" }).waitFor(WAIT);
  } finally {
    await own.close();
  }
}, 60_000);

test("a form whose page is off: the embed renders nothing and says why in the console", async () => {
  const form = await rig.createForm({ fields: FIELDS });
  const page = await rig.browser.newPage();
  try {
    const warned = page.waitForEvent("console", { predicate: (m) => m.type() === "warning" && m.text().includes("formsvc"), ...WAIT });
    await page.goto(`${rig.siteUrl}/embed.html?server=${encodeURIComponent(rig.server.url)}&slug=${form.slug}`);
    expect((await warned).text()).toContain(`the form "${form.slug}" is not shown`);
    expect(await page.locator(`[data-formsvc="${form.slug}"]`).evaluate((host) => host.shadowRoot)).toBeNull();
  } finally {
    await page.close();
  }
});

test("the embed on a site not in allowedDomains says why in the console, not only that a fetch failed", async () => {
  const form = await pageForm({ allowedDomains: ["example.com"] });
  const page = await rig.browser.newPage();
  try {
    const warned = page.waitForEvent("console", { predicate: (m) => m.type() === "warning" && m.text().includes("formsvc"), ...WAIT });
    await page.goto(`${rig.siteUrl}/embed.html?server=${encodeURIComponent(rig.server.url)}&slug=${form.slug}`);
    const site = new URL(rig.siteUrl).host;
    expect((await warned).text()).toBe(
      `formsvc: the form "${form.slug}" is not shown: This form does not accept submissions from this website: add ${site} to the form's allowedDomains.`,
    );
    expect(await page.locator(`[data-formsvc="${form.slug}"]`).evaluate((host) => host.shadowRoot)).toBeNull();
  } finally {
    await page.close();
  }
});

test("languages: _language=de gives a German page and field errors, Accept-Language: fr a French one, an unknown language English", async () => {
  const form = await pageForm({ page: { enabled: true } });
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.server.url}/f/${form.slug}?_language=de`);
    expect(await page.getAttribute("html", "lang")).toBe("de");
    await page.getByLabel("Email").fill("x");
    await page.getByRole("button", { name: "Senden" }).click();
    await page.locator(".formsvc-field[data-field=email] .formsvc-error:not([hidden])").waitFor(WAIT);
    expect((await besideFields(page)).map((f) => f.error)).toEqual([
      "Your name: Bitte ausfüllen.",
      "Email: Bitte eine E-Mail-Adresse wie anna@example.com eingeben.",
      null,
      null,
      "I agree to the terms: Bitte ankreuzen, um fortzufahren.",
    ]);
    await page.setExtraHTTPHeaders({ "Accept-Language": "fr-FR,fr;q=0.9" });
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    expect(await page.getByRole("button").textContent()).toBe("Envoyer");
    await page.getByRole("button", { name: "Envoyer" }).click();
    await page.locator(".formsvc-field[data-field=name] .formsvc-error:not([hidden])").waitFor(WAIT);
    expect((await besideFields(page))[0]!.error).toBe("Your name : veuillez remplir ce champ.");
    await page.setExtraHTTPHeaders({ "Accept-Language": "tlh" });
    await page.goto(`${rig.server.url}/f/${form.slug}`);
    expect(await page.getByRole("button").textContent()).toBe("Send");
  } finally {
    await page.close();
  }
}, 60_000);

test("the error page of a plain form on another site: accessible, each error once, and Go back returns to the form with what was typed", async () => {
  const form = await rig.createForm({ fields: [{ name: "message", label: "Message", type: "textarea", minLength: 20 }] });
  const page = await rig.browser.newPage();
  try {
    await page.goto(`${rig.siteUrl}/contact.html?server=${encodeURIComponent(rig.server.url)}&slug=${form.slug}`);
    await page.fill("#message", "Too short");
    await Promise.all([page.waitForURL(`${rig.server.url}/f/${form.slug}`), page.getByRole("button", { name: "Send" }).click()]);
    expect(await page.locator("main").textContent()).toContain("Message: enter at least 20 characters.");
    expect((await page.locator("main").textContent())!.split("enter at least 20 characters").length).toBe(2);
    await checkBothWidths(page, "error-page");
    await Promise.all([page.waitForURL(/contact\.html/), page.getByRole("link", { name: "Go back" }).click()]);
    expect(await page.inputValue("#message")).toBe("Too short");
  } finally {
    await page.close();
  }
}, 60_000);
