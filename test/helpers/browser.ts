import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";

// Flags for a headless Chromium on a machine with no network but loopback: no background connections,
// no first-run work. Web security stays on: the tests check CORS and CSP as a visitor's browser applies them.
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const ON_PATH = ["chromium", "chromium-browser", "google-chrome"];

/**
 * The Chromium the tests drive, never a downloaded one: `CHROMIUM` when set, else the first of chromium,
 * chromium-browser, google-chrome on PATH, else the headless build that the @sparticuz/chromium package ships.
 */
export async function findChromium(): Promise<string> {
  const chosen = process.env.CHROMIUM;
  if (chosen) {
    if (!existsSync(chosen)) throw new Error(`CHROMIUM is set to ${chosen}, and there is no file there`);
    return chosen;
  }
  for (const name of ON_PATH) {
    const found = Bun.which(name);
    if (found) return found;
  }
  try {
    const shipped = (await import("@sparticuz/chromium")).default;
    return await shipped.executablePath();
  } catch (error) {
    throw new Error(
      `no Chromium found: set CHROMIUM to a Chromium or Chrome executable, or put chromium on PATH (the one @sparticuz/chromium ships could not be used: ${(error as Error).message})`,
    );
  }
}

/** A headless Chromium with a fresh profile (JavaScript off with `javaScriptEnabled: false`); `close()` ends it and removes the profile. */
export async function launchBrowser(options: { javaScriptEnabled?: boolean } = {}): Promise<BrowserContext> {
  const executablePath = await findChromium();
  const profile = mkdtempSync(join(tmpdir(), "formsvc-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, { executablePath, headless: true, args: ARGS, ...options });
    context.on("close", () => rmSync(profile, { recursive: true, force: true }));
    return context;
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`Chromium at ${executablePath} did not start (set CHROMIUM to choose another): ${(error as Error).message}`);
  }
}
