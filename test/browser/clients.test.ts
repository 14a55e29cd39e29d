import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { snippetFetch } from "../../src/dashboard/pages/settings.tsx";
import type { Form } from "../../src/domain/types.ts";
import { escapeHtml } from "../../src/http/pages.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type SiteRig, startSiteRig } from "./site-support.ts";

// The client libraries sites already use, from npm and unchanged, in Chromium, on a page of another origin,
// posting to formsvc (docs/api.md, "Public submission endpoint"): @formspree/core, @formspree/react (bundled by Bun), @formspree/ajax (its
// script-tag build, as a site loads it from a CDN) and htmx 2.
const WAIT = { timeout: 15_000 };
/** @formspree/ajax's own build for a script tag, as published. */
const AJAX_SCRIPT = Bun.fileURLToPath(import.meta.resolve("@formspree/ajax/dist/global.js"));

let rig: SiteRig;
let server: ServerProcess;
let siteUrl: string;
let browser: BrowserContext;
/** The pages' scripts, bundled by Bun from test/browser/pages: file name → JavaScript. */
const scripts = new Map<string, string>();

const FIELDS = [
  { name: "email", label: "Your email", type: "email", required: true },
  { name: "message", label: "Message", type: "textarea", required: true, minLength: 5 },
];

/** The site's pages; `?endpoint=&slug=` (or `action=`) say where they post. */
function sitePage(url: URL): Response {
  if (url.pathname === "/formspree-ajax.js") return new Response(Bun.file(AJAX_SCRIPT), { headers: { "content-type": "text/javascript; charset=utf-8" } });
  const script = scripts.get(url.pathname.slice(1));
  if (script !== undefined) return new Response(script, { headers: { "content-type": "text/javascript; charset=utf-8" } });
  const action = escapeHtml(url.searchParams.get("action") ?? "");
  const pages: Record<string, string> = {
    "/core.html": `<form>
<label for="email">Email</label> <input id="email" name="email"> <span id="email-error" data-error-for="email"></span>
<label for="message">Message</label> <textarea id="message" name="message"></textarea> <span id="message-error" data-error-for="message"></span>
<button type="submit">Send</button></form><p id="status"></p><script src="/formspree-core.js"></script>`,
    // @formspree/ajax as its README shows it for a script tag: a queue, then the script, deferred.
    "/ajax.html": `<div data-fs-success></div><div id="form-error" data-fs-error></div>
<form id="contact">
<label for="email">Email</label> <input id="email" name="email" data-fs-field> <span id="email-error" data-fs-error="email"></span>
<label for="message">Message</label> <textarea id="message" name="message" data-fs-field></textarea> <span id="message-error" data-fs-error="message"></span>
<button type="submit" data-fs-submit-btn>Send</button></form>
<script>
window.formspree = window.formspree || function () { (formspree.q = formspree.q || []).push(arguments); };
const where = new URLSearchParams(location.search);
formspree("initForm", { formElement: "#contact", formId: where.get("slug"), origin: where.get("endpoint") });
</script><script src="/formspree-ajax.js" defer></script>`,
    "/react.html": `<div id="root"></div><script src="/formspree-react.js"></script>`,
    "/htmx.html": `<form hx-post="${action}" hx-target="#result">
<label for="email">Email</label> <input id="email" name="email">
<label for="message">Message</label> <textarea id="message" name="message"></textarea>
<button type="submit">Send</button></form><div id="result"></div><script src="/htmx.js"></script>`,
    "/done.html": "<h1>Done, thanks</h1>",
  };
  const body = pages[url.pathname];
  if (!body) return new Response("not found", { status: 404 });
  return new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Site</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}

/** Bundles the pages' scripts for the browser, as a site's build would. */
async function bundlePages(): Promise<void> {
  const dir = join(import.meta.dir, "pages");
  const built = await Bun.build({
    entrypoints: ["formspree-core.ts", "formspree-react.tsx", "htmx.ts"].map((name) => join(dir, name)),
    target: "browser",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!built.success) throw new AggregateError(built.logs, "the pages did not bundle");
  for (const output of built.outputs) scripts.set(output.path.replace(/^.*\//, ""), await output.text());
}

beforeAll(async () => {
  await bundlePages();
  rig = await startSiteRig(sitePage);
  ({ server, siteUrl, browser } = rig);
});

afterAll(() => rig?.stop());

const createForm = (body: Record<string, unknown> = {}) => rig.createForm({ fields: FIELDS, ...body });
/** What the form holds, read through the API. */
const stored = async (formId: string) => (await rig.submissions(formId, "filter=all&order=asc")).map((s) => s.data);

/** A tab that fails the test on any script error of the page. */
async function newPage(): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, errors };
}

const query = (form: { slug: string }) => `endpoint=${encodeURIComponent(server.url)}&slug=${form.slug}`;
const GOOD = { email: "ann@example.com", message: "Hello from the site" };

describe("@formspree/core pointed at formsvc", () => {
  test("each field's error shows beside its field; then the corrected post shows success and is stored once", async () => {
    const form = await createForm();
    const { page, errors } = await newPage();
    try {
      await page.goto(`${siteUrl}/core.html?${query(form)}`);
      await page.fill("#email", "not an address");
      await page.fill("#message", "Hi");
      await page.click("button");
      await page.waitForSelector("#status[data-answers='1']", WAIT);
      expect({
        status: await page.textContent("#status"),
        email: await page.textContent("#email + #email-error"),
        message: await page.textContent("#message + #message-error"),
      }).toEqual({ status: "Please correct the fields below.", email: expect.stringContaining("Your email"), message: expect.stringContaining("Message") });
      expect(await page.textContent("#email-error")).not.toContain("Unexpected response format");
      expect(await stored(form.id)).toEqual([]);
      await page.fill("#email", GOOD.email);
      await page.fill("#message", GOOD.message);
      await page.click("button");
      await page.waitForSelector("#status[data-answers='2']", WAIT);
      expect(await page.textContent("#status")).toBe(`Thanks! Next: ${server.url}/thanks`);
      expect({ email: await page.textContent("#email-error"), message: await page.textContent("#message-error") }).toEqual({ email: "", message: "" });
      expect({ stored: await stored(form.id), errors }).toEqual({ stored: [GOOD], errors: [] });
    } finally {
      await page.close();
    }
  });
});

describe("@formspree/react pointed at formsvc, bundled by Bun", () => {
  test("useForm and ValidationError: each field's error beside its field, then the success state, stored once", async () => {
    const form = await createForm();
    const { page, errors } = await newPage();
    try {
      await page.goto(`${siteUrl}/react.html?${query(form)}`);
      await page.fill("#email", "nope");
      await page.click("button");
      await page.waitForSelector("#email-error", WAIT);
      expect({
        email: await page.textContent("#email + #email-error"),
        message: await page.textContent("#message + #message-error"),
        form: await page.locator("#form-error").count(),
      }).toEqual({ email: expect.stringMatching(/^Email .*Your email/), message: expect.stringMatching(/^Message /), form: 0 });
      await page.fill("#email", GOOD.email);
      await page.fill("#message", GOOD.message);
      await page.click("button");
      await page.waitForSelector("#status", WAIT);
      expect(await page.textContent("#status")).toBe("Thanks for joining!");
      expect({ stored: await stored(form.id), errors }).toEqual({ stored: [GOOD], errors: [] });
    } finally {
      await page.close();
    }
  });
});

describe("@formspree/ajax pointed at formsvc, from its script tag", () => {
  test("each field's error in its data-fs-error, the field marked invalid; then Thank you!, stored once", async () => {
    const form = await createForm();
    const { page, errors } = await newPage();
    try {
      await page.goto(`${siteUrl}/ajax.html?${query(form)}`);
      await page.fill("#email", "not an address");
      await page.fill("#message", "Hi");
      await page.click("button");
      await page.waitForFunction(() => (document.querySelector("#email-error")?.textContent ?? "") !== "", undefined, WAIT);
      expect({
        email: await page.textContent("#email-error"),
        message: await page.textContent("#message-error"),
        invalid: [await page.getAttribute("#email", "aria-invalid"), await page.getAttribute("#message", "aria-invalid")],
        success: await page.textContent("[data-fs-success]"),
      }).toEqual({ email: expect.stringContaining("Your email"), message: expect.stringContaining("Message"), invalid: ["true", "true"], success: "" });
      expect(await page.textContent("#form-error")).not.toContain("Unexpected response format");
      expect(await stored(form.id)).toEqual([]);
      await page.fill("#email", GOOD.email);
      await page.fill("#message", GOOD.message);
      await page.click("button");
      await page.waitForFunction(() => (document.querySelector("[data-fs-success]")?.textContent ?? "") !== "", undefined, WAIT);
      expect({
        success: await page.textContent("[data-fs-success]"),
        formError: await page.textContent("#form-error"),
        email: await page.textContent("#email-error"),
        invalid: await page.getAttribute("#email", "aria-invalid"),
      }).toEqual({ success: "Thank you!", formError: "", email: "", invalid: null });
      expect({ stored: await stored(form.id), errors }).toEqual({ stored: [GOOD], errors: [] });
    } finally {
      await page.close();
    }
  });
});

describe("htmx 2 posting to formsvc from another origin", () => {
  test("the errors and then the thank-you fragment are swapped in; one submission stored", async () => {
    const form = await createForm();
    const { page, errors } = await newPage();
    try {
      await page.goto(`${siteUrl}/htmx.html?action=${encodeURIComponent(form.submitUrl)}`);
      await page.fill("#email", "nope");
      await page.click("button");
      await page.waitForSelector("#result .formsvc-errors", WAIT);
      const listed = await page.textContent("#result .formsvc-errors");
      expect(listed).toContain("Your email");
      expect(listed).toContain("Message");
      await page.fill("#email", GOOD.email);
      await page.fill("#message", GOOD.message);
      await page.click("button");
      await page.waitForSelector("#result .formsvc-thanks", WAIT);
      expect(await page.textContent("#result .formsvc-thanks")).toContain("Thank you! Your submission has been received.");
      expect({ stored: await stored(form.id), errors }).toEqual({ stored: [GOOD], errors: [] });
    } finally {
      await page.close();
    }
  });

  test("with the form's redirect set, htmx follows HX-Redirect to the site's page; stored once", async () => {
    const form = await createForm({ redirectUrl: `${siteUrl}/done.html` });
    const { page, errors } = await newPage();
    try {
      await page.goto(`${siteUrl}/htmx.html?action=${encodeURIComponent(form.submitUrl)}`);
      await page.fill("#email", GOOD.email);
      await page.fill("#message", GOOD.message);
      await page.click("button");
      await page.waitForURL(`${siteUrl}/done.html`, WAIT);
      expect(await page.textContent("h1")).toBe("Done, thanks");
      expect({ stored: await stored(form.id), errors }).toEqual({ stored: [GOOD], errors: [] });
    } finally {
      await page.close();
    }
  });
});

describe("the dashboard's fetch() snippet, run on a site", () => {
  test("its answer lost on the way back, it tries again with the same Idempotency-Key: one submission", async () => {
    const form = await createForm();
    const { page, errors } = await newPage();
    let tries = 0;
    try {
      await page.goto(`${siteUrl}/done.html`);
      // The first post reaches formsvc and is stored, then its answer is lost (the connection is reset).
      await page.route(form.submitUrl, async (route) => {
        if (route.request().method() !== "POST" || ++tries > 1) return route.continue();
        await route.fetch();
        await route.abort("connectionreset");
      });
      const snippet = snippetFetch({ submitUrl: form.submitUrl } as Form);
      const result = await page.evaluate(`(async () => { ${snippet}\nreturn result; })()`);
      const kept = await stored(form.id);
      expect({ tries, result, kept, errors }).toEqual({
        tries: 2,
        result: { success: true, message: "Thank you! Your submission has been received.", id: expect.any(String), next: `${server.url}/thanks` },
        kept: [{ email: "ada@example.com", message: "Hello" }],
        errors: [],
      });
    } finally {
      await page.close();
    }
  });
});
