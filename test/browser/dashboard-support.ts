import { AxeBuilder } from "@axe-core/playwright";
import { expect } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { ROOT } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

export const WAIT = { timeout: 10_000 };
export const OWNER = { email: "owner@example.com", password: "correct horse battery" };

/** A `formsvc serve` and a Chromium with one tab open: what each dashboard test file starts with. */
export interface Dashboard {
  server: ServerProcess;
  browser: BrowserContext;
  page: Page;
  /** The Content-Security-Policy violations of the browser's pages, when asked to watch them (`watchCsp`). */
  csp: string[];
  /** Closes the browser, stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** Starts the server with `args` (by default without a rate limit) and the browser, watching CSP when asked. */
export async function startDashboard(options: { args?: string[]; csp?: boolean } = {}): Promise<Dashboard> {
  const server = await startServerProcess({ args: options.args ?? ["--rate-limit", "0"] });
  let browser: BrowserContext | undefined;
  const stop = async () => {
    await browser?.close();
    await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  };
  try {
    browser = await launchBrowser();
    const csp = options.csp ? await watchCsp(browser) : [];
    return { server, browser, page: await browser.newPage(), csp, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Waits until the server's stderr shows `pattern` (the setup link comes after the listening line). */
export async function waitForLog(server: ServerProcess, pattern: RegExp, timeoutMs = 5000): Promise<RegExpExecArray> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const found = pattern.exec(server.stderr());
    if (found) return found;
    if (Date.now() > until) throw new Error(`the server never printed ${pattern}:\n${server.stderr()}`);
    await Bun.sleep(20);
  }
}

/** The one-time setup link `serve` printed. */
export const setupLink = async (server: ServerProcess) => (await waitForLog(server, /(http:\/\/\S+\/dashboard\/setup\?token=\S+)/))[1]!;

/** Opens the setup link and makes the first user; the browser is then signed in, on the forms page. */
export async function setUp(page: Page, link: string, user = OWNER): Promise<void> {
  await page.goto(link);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password", { exact: true }).fill(user.password);
  await page.getByLabel("Password again").fill(user.password);
  await Promise.all([page.waitForURL(/\/dashboard\/forms$/, WAIT), page.getByRole("button", { name: "Create user and sign in" }).click()]);
}

/** Signs in through the sign-in page. */
export async function signIn(page: Page, base: string, user = OWNER): Promise<void> {
  await page.goto(`${base}/dashboard/signin`);
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await Promise.all([page.waitForURL(/\/dashboard\/forms$/, WAIT), page.getByRole("button", { name: "Sign in", exact: true }).click()]);
}

/** Records what the browser reports as Content-Security-Policy violations on pages of this context. */
export async function watchCsp(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeFunction("__reportCsp", (text: string) => violations.push(text));
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      (window as unknown as { __reportCsp(text: string): void }).__reportCsp(`${event.violatedDirective} ${event.blockedURI} at ${location.pathname}`);
    });
  });
  context.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  return violations;
}

/** Fails on any serious or critical accessibility violation axe finds on the page. */
export async function expectAccessible(page: Page): Promise<void> {
  // The form page's preview is a sandboxed frame of another page, checked by its own tests (form-page.test.ts).
  const results = await new AxeBuilder({ page }).exclude("iframe.page-preview").analyze();
  const grave = results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}) on ${page.url()}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(grave).toEqual([]);
}

const SHOTS = process.env.FORMSVC_SCREENSHOTS === "1";

/**
 * With FORMSVC_SCREENSHOTS=1, saves the page into docs/img/ (for docs/dashboard.md), at 1280 px wide, or
 * 390 px for `mobile`, light or dark. Without it, does nothing: the tests stay fast.
 */
export async function screenshot(page: Page, name: string, { mobile = false, dark = false, full = false } = {}): Promise<void> {
  if (!SHOTS) return;
  const dir = join(ROOT, "docs", "img");
  mkdirSync(dir, { recursive: true });
  const before = page.viewportSize();
  await page.setViewportSize(mobile ? { width: 390, height: 760 } : { width: 1280, height: 800 });
  // A new width moves the page under a section the address names (#destinations): brought back into view.
  await page.evaluate(() => (location.hash ? document.getElementById(location.hash.slice(1))?.scrollIntoView() : undefined));
  await page.emulateMedia({ colorScheme: dark ? "dark" : "light" });
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: full });
  await page.emulateMedia({ colorScheme: "light" });
  if (before) await page.setViewportSize(before);
}

/** Checks the page at 1280 px and at 390 px: no serious accessibility problem, nothing wider than the phone; saves both screenshots. */
export async function checkBothWidths(page: Page, name: string): Promise<void> {
  await expectAccessible(page);
  await screenshot(page, name);
  const before = page.viewportSize();
  await page.setViewportSize({ width: 390, height: 760 });
  try {
    expect({ page: name, width: await page.evaluate(() => document.documentElement.scrollWidth) }).toEqual({ page: name, width: 390 });
    await expectAccessible(page);
    await screenshot(page, `${name}-phone`, { mobile: true });
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/** The CSRF token of the signed-in page (every page's sign-out form carries it): what a forged post would need. */
export const csrfOf = async (page: Page) => (await page.locator('input[name="_csrf"]').first().getAttribute("value"))!;
