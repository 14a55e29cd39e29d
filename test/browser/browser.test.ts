import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { escapeHtml } from "../../src/http/pages.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import type { StoredSubmission } from "../api/public-support.ts";

// A real Chromium posts real forms (test/helpers/browser.ts says which one).
const WAIT = { timeout: 10_000 };

let server: ServerProcess;
let site: ReturnType<typeof Bun.serve>;
let siteUrl: string;
let key: string;
let browser: BrowserContext | undefined;
let launchError: Error | undefined;

/** The static site's pages: a plain HTML form, a fetch() form, and a page of its own to land on. */
function sitePage(url: URL): Response {
  const action = escapeHtml(url.searchParams.get("action") ?? "");
  const fields = `<input name="name" id="name"> <input name="email" id="email" type="email">
<label><input type="checkbox" name="topics" value="sales"> Sales</label>
<label><input type="checkbox" name="topics" value="support"> Support</label>
<label><input type="checkbox" name="topics" value="billing"> Billing</label>
<input type="text" name="_gotcha" id="gotcha" style="display:none" tabindex="-1" autocomplete="off">
<textarea name="message" id="message"></textarea>
<button type="submit">Send</button>`;
  const pages: Record<string, string> = {
    "/form.html": `<h1>Contact</h1><form action="${action}" method="post">${fields}</form>`,
    "/fetch.html": `<h1>Contact</h1><form id="contact" data-action="${action}">${fields}</form><p id="result"></p>
<script>
document.getElementById("contact").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.target, result = document.getElementById("result");
  const data = {};
  for (const [name, value] of new FormData(form)) data[name] = name in data ? [].concat(data[name], value) : value;
  try {
    const answer = await fetch(form.dataset.action, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(data),
    });
    const body = await answer.json();
    result.textContent = body.success ? "Sent " + body.id : "Refused " + body.error.code;
  } catch (error) {
    result.textContent = "Not sent: " + error.message;
  }
  result.dataset.done = "yes";
});
</script>`,
    "/done.html": `<h1>Done, thanks</h1>`,
  };
  const body = pages[url.pathname];
  if (!body) return new Response("not found", { status: 404 });
  return new Response(`<!doctype html><html><head><meta charset="utf-8"><title>Site</title></head><body>${body}</body></html>`, {
    headers: { "content-type": "text/html; charset=utf-8" },
  });
}

beforeAll(async () => {
  server = await startServerProcess();
  const minted = await runCli(["keys", "create", "--db", server.db]);
  expect(minted.code).toBe(0);
  key = minted.stdout.trim();
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => sitePage(new URL(request.url)) });
  siteUrl = `http://127.0.0.1:${site.port}`;
  try {
    browser = await launchBrowser();
  } catch (error) {
    launchError = error as Error;
  }
});

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await server?.stop();
  if (server?.dir) rmSync(server.dir, { recursive: true, force: true });
});

/** A fresh tab; fails the test, loudly, when there is no browser. */
async function newPage(): Promise<Page> {
  if (!browser) throw launchError ?? new Error("the browser did not start");
  return browser.newPage();
}

async function createForm(body: Record<string, unknown> = {}): Promise<{ id: string; submitUrl: string }> {
  const answer = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Contact", ...body }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; submitUrl: string };
}

async function stored(formId: string, filter = "all"): Promise<StoredSubmission[]> {
  const answer = await fetch(`${server.url}/api/forms/${formId}/submissions?filter=${filter}`, { headers: { authorization: `Bearer ${key}` } });
  return ((await answer.json()) as { submissions: StoredSubmission[] }).submissions;
}

async function fillContact(page: Page): Promise<void> {
  await page.fill("#name", "Ann Example");
  await page.fill("#email", "ann@example.com");
  await page.check("input[value=sales]");
  await page.check("input[value=billing]");
  await page.fill("#message", "Hello <b>there</b> & welcome");
}

const CONTACT = { name: "Ann Example", email: "ann@example.com", topics: ["sales", "billing"], message: "Hello <b>there</b> & welcome" };

describe("a plain HTML form in Chromium", () => {
  test("clicking Send lands on the thank-you page, and the fields are stored", async () => {
    const form = await createForm();
    const page = await newPage();
    try {
      await page.goto(`${siteUrl}/form.html?action=${encodeURIComponent(form.submitUrl)}`);
      await fillContact(page);
      await Promise.all([page.waitForURL(`${server.url}/thanks`, WAIT), page.click("button[type=submit]")]);
      expect(await page.textContent("h1")).toBe("Thank you!");
      // The way back is the site the visitor came from.
      expect(await page.getAttribute("a", "href")).toStartWith(siteUrl);
    } finally {
      await page.close();
    }
    expect((await stored(form.id)).map((s) => ({ data: s.data, isSpam: s.isSpam }))).toEqual([{ data: CONTACT, isSpam: false }]);
  });

  test("a form restricted to the site goes to its redirectUrl; a bot filling the honeypot goes there too, as spam", async () => {
    const form = await createForm({ allowedDomains: [`127.0.0.1:${site.port}`], redirectUrl: `${siteUrl}/done.html` });
    const page = await newPage();
    try {
      for (const bot of [false, true]) {
        await page.goto(`${siteUrl}/form.html?action=${encodeURIComponent(form.submitUrl)}`);
        await fillContact(page);
        if (bot) await page.evaluate(() => ((document.getElementById("gotcha") as HTMLInputElement).value = "https://spam.example"));
        await Promise.all([page.waitForURL(`${siteUrl}/done.html`, WAIT), page.click("button[type=submit]")]);
        expect(await page.textContent("h1")).toBe("Done, thanks");
      }
    } finally {
      await page.close();
    }
    expect((await stored(form.id)).map((s) => s.data)).toEqual([CONTACT]);
    expect((await stored(form.id, "spam")).map((s) => s.data)).toEqual([CONTACT]);
  });
});

describe("fetch() from a static page in Chromium", () => {
  async function sendWithFetch(submitUrl: string): Promise<string> {
    const page = await newPage();
    try {
      await page.goto(`${siteUrl}/fetch.html?action=${encodeURIComponent(submitUrl)}`);
      await fillContact(page);
      await page.click("button[type=submit]");
      await page.waitForSelector("#result[data-done=yes]", WAIT);
      return (await page.textContent("#result")) ?? "";
    } finally {
      await page.close();
    }
  }

  test("from an allowed origin the page shows success, and the submission is stored under that id", async () => {
    const form = await createForm({ allowedDomains: ["example.com", `127.0.0.1:${site.port}`] });
    const shown = await sendWithFetch(form.submitUrl);
    expect(shown).toMatch(/^Sent sub_\w+$/);
    expect((await stored(form.id)).map((s) => ({ id: s.id, data: s.data }))).toEqual([{ id: shown.slice("Sent ".length), data: CONTACT }]);
  });

  test("a form restricted to other domains is refused for the page, and nothing is stored", async () => {
    const form = await createForm({ allowedDomains: ["example.com"] });
    const shown = await sendWithFetch(form.submitUrl);
    // The browser itself blocks the answer: no Access-Control-Allow-Origin for this origin.
    expect(shown).toStartWith("Not sent: ");
    expect(await stored(form.id)).toEqual([]);
  });
});
