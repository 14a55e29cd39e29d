import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// The reference page as a person sees it: a real Chromium opens /docs on a real `formsvc serve`, with the
// page's Content-Security-Policy applied, and with no network beyond the server.
let server: ServerProcess;
let browser: BrowserContext | undefined;
let launchError: Error | undefined;

beforeAll(async () => {
  server = await startServerProcess();
  try {
    browser = await launchBrowser();
  } catch (error) {
    launchError = error as Error;
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (server?.dir) rmSync(server.dir, { recursive: true, force: true });
});

test("/docs shows every operation of the document, from the server alone, within its Content-Security-Policy", async () => {
  if (!browser) throw launchError ?? new Error("the browser did not start");
  const page = await browser.newPage();
  const problems: string[] = [];
  const hosts = new Set<string>();
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(message.text());
  });
  page.on("pageerror", (error) => problems.push(error.message));
  page.on("request", (request) => {
    if (!request.url().startsWith("data:")) hosts.add(new URL(request.url()).origin);
  });
  await page.goto(`${server.url}/docs`);
  await page.locator(".opblock-summary-path", { hasText: "/api/forms/{id}/submissions/{submissionId}" }).first().waitFor({ timeout: 15_000 });
  expect(await page.locator(".info .title").textContent()).toContain("formsvc API");
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as { paths: Record<string, object> };
  const operations = Object.values(document.paths).reduce((n, item) => n + Object.keys(item).length, 0);
  expect(await page.locator(".opblock").count()).toBe(operations);
  expect({ problems, hosts: [...hosts] }).toEqual({ problems: [], hosts: [new URL(server.url).origin] });
  await page.close();
}, 30_000);
