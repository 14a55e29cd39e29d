import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testApp, type TestApp } from "../helpers/app.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess } from "../helpers/server.ts";

let t: TestApp;
afterEach(() => t?.close());

test("a key, a form, a post and the list, in-process", async () => {
  t = await testApp();
  const account = await t.account();
  const key = await account.key();
  const created = await t.request("POST", "/api/forms", { key, body: { name: "Contact" } });
  expect(created.status).toBe(201);
  const form = (await created.json()) as { id: string; slug: string };
  const posted = await t.request("POST", `/f/${form.slug}`, { body: new URLSearchParams({ email: "a@example.com" }) });
  expect(posted.status).toBe(303);
  const list = await t.request("GET", `/api/forms/${form.id}/submissions`, { key });
  const page = (await list.json()) as { submissions: { data: unknown }[]; pagination: { total: number } };
  expect(page.submissions.map((s) => s.data)).toEqual([{ email: "a@example.com" }]);
  expect(page.pagination.total).toBe(1);
});

test("the real server process answers, and the CLI mints a key on its database", async () => {
  const server = await startServerProcess();
  try {
    const minted = await runCli(["keys", "create", "--db", server.db]);
    expect(minted.code).toBe(0);
    const key = minted.stdout.trim();
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{38}$/);
    const forms = await fetch(`${server.url}/api/forms`, { headers: { authorization: `Bearer ${key}` } });
    expect(await forms.json()).toEqual({ forms: [] });
  } finally {
    await server.stop();
  }
});

// The CLI's commands are tested in-process (test/cli/); these few runs are of the real program.
test("the real CLI runs a command after global options, even a value named like a command", async () => {
  // Each start builds only the command it runs: the database file here is named "serve".
  const cwd = mkdtempSync(join(tmpdir(), "formsvc-named-"));
  try {
    expect((await runCli(["--db", "serve", "forms", "create", "--name", "Contact", "--slug", "contact"], { cwd })).code).toBe(0);
    const forms = await runCli(["--db", "serve", "--json", "forms", "list"], { cwd });
    expect({ code: forms.code, slugs: JSON.parse(forms.stdout).map((form: { slug: string }) => form.slug), stderr: forms.stderr }).toEqual({
      code: 0,
      slugs: ["contact"],
      stderr: "",
    });
    expect(await runCli(["--db", "serve", "froms", "list"], { cwd })).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: unknown command 'froms' (Did you mean forms?) (see --help)\n",
    });
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
