// What the browser tests of a visitor's page share: a real `formsvc serve` with an admin key, a static site of
// another origin whose pages post to it, and Chromium.
import { expect } from "bun:test";
import { rmSync } from "node:fs";
import type { BrowserContext } from "playwright-core";
import type { StoredSubmission } from "../api/public-support.ts";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

export interface SiteRig {
  server: ServerProcess;
  /** An admin key of the server's account. */
  key: string;
  /** The site's origin, `http://127.0.0.1:<port>`. */
  siteUrl: string;
  browser: BrowserContext;
  /** Makes a live form `{name: "Contact", ...body}` through the API. */
  createForm(body?: Record<string, unknown>): Promise<{ id: string; slug: string; submitUrl: string }>;
  /** The form's submissions as the API lists them for `query` (its default list without one). */
  submissions(formId: string, query?: string): Promise<StoredSubmission[]>;
  stop(): Promise<void>;
}

/** Starts the server (with `--rate-limit 0`), the site answering with `sitePage`, and Chromium. */
export async function startSiteRig(sitePage: (url: URL) => Response | Promise<Response>): Promise<SiteRig> {
  const server = await startServerProcess({ args: ["--rate-limit", "0"] });
  const minted = await runCli(["keys", "create", "--db", server.db]);
  expect(minted.code).toBe(0);
  const key = minted.stdout.trim();
  const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => sitePage(new URL(request.url)) });
  let browser: BrowserContext | undefined;
  const stop = async () => {
    await browser?.close();
    site.stop(true);
    await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  };
  try {
    browser = await launchBrowser();
  } catch (error) {
    await stop();
    throw error;
  }
  const authorization = { authorization: `Bearer ${key}` };
  return {
    server,
    key,
    siteUrl: `http://127.0.0.1:${site.port}`,
    browser,
    async createForm(body = {}) {
      const answer = await fetch(`${server.url}/api/forms`, {
        method: "POST",
        headers: { ...authorization, "content-type": "application/json" },
        body: JSON.stringify({ name: "Contact", ...body }),
      });
      expect(answer.status).toBe(201);
      return (await answer.json()) as { id: string; slug: string; submitUrl: string };
    },
    async submissions(formId, query) {
      const answer = await fetch(`${server.url}/api/forms/${formId}/submissions${query ? `?${query}` : ""}`, { headers: authorization });
      return ((await answer.json()) as { submissions: StoredSubmission[] }).submissions;
    },
    stop,
  };
}
