import { afterEach, expect, test } from "bun:test";
import { findChromium } from "../helpers/browser.ts";

// The browser tests must fail loudly, naming the variable to set, rather than skip when no browser is there.

const saved = process.env.CHROMIUM;
afterEach(() => {
  if (saved === undefined) delete process.env.CHROMIUM;
  else process.env.CHROMIUM = saved;
});

test("CHROMIUM naming a missing file is an error that names the variable", async () => {
  process.env.CHROMIUM = "/nonexistent/chromium";
  await expect(findChromium()).rejects.toThrow("CHROMIUM is set to /nonexistent/chromium, and there is no file there");
});

test("without CHROMIUM a Chromium is found: on PATH or the one @sparticuz/chromium ships", async () => {
  delete process.env.CHROMIUM;
  const path = await findChromium();
  expect(await Bun.file(path).exists()).toBe(true);
});
