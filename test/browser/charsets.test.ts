import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext } from "playwright-core";
import { escapeHtml } from "../../src/http/pages.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type SiteRig, startSiteRig } from "./site-support.ts";

// Pages in legacy charsets post through Chromium, which encodes what was typed in the page's charset (or the
// form's accept-charset) and fills in `_charset_`: what formsvc stores is what was typed (docs/api.md, "Public submission endpoint").
const WAIT = { timeout: 15_000 };

let rig: SiteRig;
let server: ServerProcess;
let siteUrl: string;
let browser: BrowserContext;

/** A page served in `charset` (its text is ASCII, so its bytes are the same in each), posting to `action`. */
function sitePage(url: URL): Response {
  const action = escapeHtml(url.searchParams.get("action") ?? "");
  const charset = url.searchParams.get("charset") ?? "utf-8";
  const attributes = [
    url.searchParams.get("multipart") ? ' enctype="multipart/form-data"' : "",
    url.searchParams.get("accept") ? ` accept-charset="${escapeHtml(url.searchParams.get("accept")!)}"` : "",
  ].join("");
  const html = `<!doctype html><html lang="en"><head><title>Site</title></head><body>
<form action="${action}" method="post"${attributes}>
${url.searchParams.get("bare") ? "" : '<input type="hidden" name="_charset_">'}
<label for="name">Name</label> <input id="name" name="name">
<label for="message">Message</label> <textarea id="message" name="message"></textarea>
<button type="submit">Send</button></form></body></html>`;
  return new Response(html, { headers: { "content-type": `text/html; charset=${charset}` } });
}

beforeAll(async () => {
  rig = await startSiteRig(sitePage);
  ({ server, siteUrl, browser } = rig);
});

afterAll(() => rig?.stop());

const createForm = () => rig.createForm();
const stored = async (formId: string) => (await rig.submissions(formId, "filter=all&order=asc")).map((s) => s.data);

/**
 * Types `typed` into a page made with `page` options and sends it; gives the body the browser sent, what the
 * visitor saw, and what the form stored.
 */
async function typeAndSend(page: Record<string, string>, typed: { name: string; message: string }, landing: string | RegExp = `${server.url}/thanks`) {
  const form = await createForm();
  const tab = await browser.newPage();
  let posted = "";
  tab.on("request", (request) => {
    if (request.method() === "POST") posted = request.postData() ?? "";
  });
  try {
    await tab.goto(`${siteUrl}/form.html?${new URLSearchParams({ ...page, action: form.submitUrl })}`);
    await tab.locator("#name").pressSequentially(typed.name);
    await tab.locator("#message").pressSequentially(typed.message);
    await tab.click("button");
    await tab.waitForURL(landing, WAIT);
    return { posted, seen: await tab.textContent("body"), stored: await stored(form.id) };
  } finally {
    await tab.close();
  }
}

const LATIN = { name: "José Köln", message: "José Köln – 5 € „quoted“ Ärger" };
const JAPANESE = { name: "山田 太郎", message: "東京都港区のカフェで、コーヒーを一杯ください。" };

describe("a page in a legacy charset, in Chromium", () => {
  test("windows-1252, urlencoded: stored as typed, and _charset_ is not stored", async () => {
    const sent = await typeAndSend({ charset: "windows-1252" }, LATIN);
    // The browser really sent windows-1252 bytes (é as E9, € as 80), not UTF-8.
    expect(sent.posted).toStartWith("_charset_=windows-1252&name=Jos%E9+K%F6ln&message=Jos%E9+K%F6ln+%96+5+%80");
    expect(sent.stored).toEqual([LATIN]);
  });

  test("windows-1252 without _charset_: the bytes are not UTF-8, so the visitor is told and nothing is stored", async () => {
    const sent = await typeAndSend({ charset: "windows-1252", bare: "1" }, LATIN, /\/f\//);
    expect(sent.posted).toStartWith("name=Jos%E9");
    expect({ seen: sent.seen, stored: sent.stored }).toEqual({
      seen: expect.stringContaining(
        'The value of name is not valid utf-8. A form on a page in another charset must say which: add <input type="hidden" name="_charset_"> to it.',
      ),
      stored: [],
    });
  });

  test("ISO-8859-1 (which browsers send as windows-1252, € and – included), multipart: stored as typed", async () => {
    expect((await typeAndSend({ charset: "ISO-8859-1", multipart: "1" }, LATIN)).stored).toEqual([LATIN]);
  });

  test("Shift_JIS, urlencoded and multipart: Japanese stored as typed", async () => {
    const sent = await typeAndSend({ charset: "Shift_JIS" }, JAPANESE);
    expect(sent.posted).toStartWith("_charset_=Shift_JIS&name=%8ER%93c"); // 山田 in Shift_JIS
    expect(sent.stored).toEqual([JAPANESE]);
    expect((await typeAndSend({ charset: "Shift_JIS", multipart: "1" }, JAPANESE)).stored).toEqual([JAPANESE]);
  });

  test("a UTF-8 page whose form says accept-charset=windows-1252: stored as typed", async () => {
    expect((await typeAndSend({ charset: "utf-8", accept: "windows-1252" }, LATIN)).stored).toEqual([LATIN]);
  });
});
