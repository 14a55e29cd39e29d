import { afterEach, beforeAll, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RELEASE_BUILD_MS, RELEASE_TEST_MS, run, type TestReleases, testReleases } from "../release/support.ts";

// The dashboard's Account page of a release binary (1.0.0) against the test releases' server (latest 1.0.1):
// it shows the version, and asks the release address only with --update-check and only when a user presses
// the button.
let releases: TestReleases;
let binary: string;
let server: ReturnType<typeof Bun.spawn> | undefined;
let asked: string[];

beforeAll(async () => {
  releases = await testReleases();
  binary = join(releases.binary("1.0.0"));
  // Every request the release server gets: when formsvc calls out, and when it does not.
  asked = releases.asked;
}, RELEASE_BUILD_MS);

afterEach(async () => {
  server?.kill("SIGTERM");
  await server?.exited;
});

/** Serves a fresh database with the 1.0.0 binary and signs a user in; the page fetcher. */
async function accountPage(...serveArgs: string[]) {
  const db = join(mkdtempSync(join(tmpdir(), "formsvc-account-")), "formsvc.db");
  server = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db, ...serveArgs], { stdout: "ignore", stderr: "pipe", stdin: "ignore" });
  const reader = (server.stderr as ReadableStream<Uint8Array>).getReader();
  let log = "";
  while (!/listening on \S+, (http:\/\/\S+)/.test(log)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited: ${log}`);
    log += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = /listening on \S+, (http:\/\/\S+)/.exec(log)![1]!;
  const made = Bun.spawn([binary, "users", "create", "owner@example.com", "--password-stdin", "--db", db], {
    stdin: new Blob(["a long enough password"]),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await made.exited).toBe(0);
  const link = (await run(binary, ["dashboard", "link", "--email", "owner@example.com", "--db", db], { FORMSVC_BASE_URL: url })).stdout.trim();
  const signedIn = await fetch(link, { redirect: "manual" });
  const cookie = signedIn.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  return async (query = "") => {
    const page = await fetch(`${url}/dashboard/account${query}`, { headers: { cookie } });
    expect(page.status).toBe(200);
    // The version card's text, without tags.
    const html = await page.text();
    const card = /<section class="card" id="version">([\s\S]*?)<\/section>/.exec(html)?.[1] ?? "";
    return card
      .replace(/<[^>]+>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  };
}

test(
  "the Account page shows the running version; with --update-check a button asks the release address, and only then",
  async () => {
    const page = await accountPage("--update-check");
    asked.length = 0;
    expect(await page()).toBe("Version formsvc 1.0.0 (linux-x64) Check for a newer version");
    expect(asked).toEqual([]);
    expect(await page("?check=update")).toBe(
      "Version formsvc 1.0.0 (linux-x64) formsvc 1.0.1 is available (this server runs 1.0.0). On the server: sudo formsvc update --yes --restart Check for a newer version",
    );
    expect(asked.sort()).toEqual(["/formsvc/manifest.json", "/formsvc/manifest.json.sig"]);
  },
  RELEASE_TEST_MS,
);

test(
  "without --update-check the page never asks, even when told to",
  async () => {
    const page = await accountPage();
    asked.length = 0;
    expect(await page("?check=update")).toBe(
      "Version formsvc 1.0.0 (linux-x64) Checking for a newer version is off on this server. This server does not ask for newer versions (serve --update-check turns on a button here). On the server: formsvc update --check",
    );
    expect(asked).toEqual([]);
  },
  RELEASE_TEST_MS,
);
