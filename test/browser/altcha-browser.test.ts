import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { escapeHtml } from "../../src/http/pages.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type SiteRig, startSiteRig } from "./site-support.ts";

// The real altcha widget, served by formsvc, solves a real challenge from formsvc in a real Chromium.
const WAIT = { timeout: 25_000 };

let rig: SiteRig;
let server: ServerProcess;
let siteUrl: string;

/** A static site's contact page: the widget's script from formsvc, the form posting to formsvc, with or without the widget. */
function sitePage(url: URL): Response {
  const server = escapeHtml(url.searchParams.get("server") ?? "");
  const slug = escapeHtml(url.searchParams.get("slug") ?? "");
  const widget = url.searchParams.get("widget") === "no" ? "" : `<altcha-widget challenge="${server}/f/${slug}/altcha" auto="onload"></altcha-widget>`;
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>Site</title>
<script async defer src="${server}/altcha.js" type="module"></script></head><body><h1>Contact</h1>
<form action="${server}/f/${slug}" method="post"><textarea name="message" id="message"></textarea>${widget}<button type="submit">Send</button></form>
</body></html>`;
  return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
}

beforeAll(async () => {
  rig = await startSiteRig(sitePage);
  ({ server, siteUrl } = rig);
}, 30_000);

afterAll(() => rig?.stop());

const newPage = (): Promise<Page> => rig.browser.newPage();
const createForm = () => rig.createForm({ captcha: { provider: "altcha", complexity: 500 } });
const stored = (formId: string) => rig.submissions(formId);

test("the altcha widget solves formsvc's challenge in Chromium and the post is stored; its solution posted again is refused", async () => {
  const form = await createForm();
  const page = await newPage();
  let solution = "";
  try {
    await page.goto(`${siteUrl}/contact.html?server=${encodeURIComponent(server.url)}&slug=${form.slug}`);
    await page.fill("#message", "Hello from a person");
    // The widget puts its payload in a hidden altcha field once it has solved the challenge.
    await page.waitForFunction(() => (document.querySelector("input[name=altcha]") as HTMLInputElement | null)?.value, undefined, WAIT);
    solution = await page.$eval("input[name=altcha]", (input) => (input as HTMLInputElement).value);
    await Promise.all([page.waitForURL(`${server.url}/thanks`, WAIT), page.click("button[type=submit]")]);
    expect(await page.textContent("h1")).toBe("Thank you!");
  } finally {
    await page.close();
  }
  expect((await stored(form.id)).map((s) => ({ data: s.data, isSpam: s.isSpam }))).toEqual([{ data: { message: "Hello from a person" }, isSpam: false }]);
  // A bot that replays the solution it saw gets the API's error, and nothing is stored.
  const replay = await fetch(`${server.url}/f/${form.slug}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ message: "Replayed", altcha: solution }),
  });
  expect(replay.status).toBe(400);
  expect(((await replay.json()) as { error: { code: string; field: string } }).error).toMatchObject({ code: "captcha_failed", field: "altcha" });
  expect(await stored(form.id)).toHaveLength(1);
}, 60_000);

test("a browser posting without the widget's solution gets the captcha error page, with a way back", async () => {
  const form = await createForm();
  const page = await newPage();
  try {
    await page.goto(`${siteUrl}/contact.html?server=${encodeURIComponent(server.url)}&slug=${form.slug}&widget=no`);
    await page.fill("#message", "No captcha here");
    const [answer] = await Promise.all([page.waitForNavigation(WAIT), page.click("button[type=submit]")]);
    expect(answer?.status()).toBe(400);
    expect(await page.textContent("body")).toContain("captcha");
    expect(await page.getAttribute("a", "href")).toStartWith(siteUrl);
  } finally {
    await page.close();
  }
  expect(await stored(form.id)).toEqual([]);
}, 60_000);
