import { afterAll, beforeAll, expect, test } from "bun:test";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";

// The dashboard's deliveries page, in-process: what an owner reads of each delivery's target.

let t: TestApp;
let cookie: string;
let key: string;
let form: { id: string; slug: string };

beforeAll(async () => {
  // The destination's address is on this machine, which this app allows as --webhooks-allow-private does.
  t = await testApp({ webhooks: { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }] } });
  const account = await t.account("owner");
  key = await account.key();
  form = await account.form({ name: "Routed" });
  const user = await t.services.users.create(account.id, "owner@example.com", "a long enough password");
  cookie = `formsvc_session=${(await t.services.users.createSession(user.id)).token}`;
});
afterAll(() => t.close());

test("a destination's delivery is listed by the destination's type and target, not its id", async () => {
  const made = await t.request("POST", `/api/forms/${form.id}/destinations`, {
    key,
    body: { type: "telegram", config: { botToken: "123456:telegram-bot-token", chatId: "-100123", baseUrl: "http://127.0.0.1:9" } },
  });
  expect(made.status).toBe(201);
  const { id } = (await made.json()) as { id: string };
  const posted = await t.request("POST", `/f/${form.slug}`, { headers: { accept: "application/json" }, body: { email: "ann@example.com" } });
  expect(posted.status).toBe(200);
  const page = await (await t.app.fetch(new Request(`${BASE}/dashboard/forms/${form.id}/deliveries`, { headers: { cookie } }))).text();
  const section = page.slice(page.indexOf('id="webhooks"'));
  const row = section.split("<tr>")[2] ?? "";
  expect(row).toContain("Telegram destination · -100123");
  expect(section).not.toContain(id);
});
