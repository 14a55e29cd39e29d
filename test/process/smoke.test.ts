import { afterEach, expect, test } from "bun:test";
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
