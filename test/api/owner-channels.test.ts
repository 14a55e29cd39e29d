import { afterEach, expect, test } from "bun:test";
import { notificationText } from "../../src/lib/mail.ts";
import { startWebhookSender } from "../../src/workers/webhook-sender.ts";
import { testApp } from "../helpers/app.ts";
import { startVendors, VENDOR } from "../helpers/vendors.ts";

// Every channel an owner reads a submission in (the notification mail, Teams, Telegram, ntfy) shows a visitor's
// values by one rule: a link cannot be followed (defanged), an email address is shown as given so that the owner
// can reply. Sent by the real webhook sender to the faithful stand-ins of test/helpers/vendors.ts.

const LOOPBACK = async () => [{ address: "127.0.0.1", family: 4 as const }];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const posted = {
  email: "ann.lee@example.com",
  site: "https://evil.example/login?next=1",
  note: "call me, or see www.evil.example or mailto:eve@evil.example",
};
// As every owner channel shows them.
const SHOWN = [
  "email: ann.lee@example.com",
  "site: hxxps://evil[.]example/login?next=1",
  "note: call me, or see www[.]evil[.]example or mailto[:]eve@evil.example",
];

test("Telegram, ntfy, Teams and the notification mail show a visitor's links defanged and email addresses as given, line for line", async () => {
  const t = await testApp({ webhooks: { allowPrivate: true, resolve: LOOPBACK } });
  cleanups.push(() => t.close());
  const vendors = startVendors();
  cleanups.push(() => vendors.stop());
  const logs: string[] = [];
  const sender = startWebhookSender(t.services.webhooks, {
    retryScale: 0.001,
    allowPrivate: true,
    resolve: LOOPBACK,
    userAgent: "formsvc-test",
    log: { line: (text) => logs.push(text), error: (text, error) => logs.push(`${text}: ${String(error)}`) },
  });
  cleanups.push(() => sender.stop(500));
  const account = await t.account();
  const key = await account.key();
  const form = await account.form();
  for (const [type, config] of [
    ["telegram", { botToken: VENDOR.telegram.botToken, chatId: VENDOR.telegram.chatId, baseUrl: vendors.url }],
    ["ntfy", { topic: VENDOR.ntfy.topic, token: VENDOR.ntfy.token, baseUrl: vendors.url }],
    ["teams", { url: `${vendors.url}${VENDOR.teams.path}` }],
  ] as const) {
    const made = await t.request("POST", `/api/forms/${form.id}/destinations`, { key, body: { type, config } });
    expect(made.status).toBe(201);
  }
  const answer = await t.request("POST", `/f/${form.slug}`, { body: posted, headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);

  const [message] = await vendors.waitFor("telegram", 1);
  const [notification] = await vendors.waitFor("ntfy", 1);
  const [card] = await vendors.waitFor("teams", 1);
  const mail = notificationText({ formName: "Contact", formSlug: form.slug, submissionId: "sub_1", receivedAt: "2026-12-06T05:00:00.000Z", data: posted });
  expect({
    telegram: message.text.split("\n").slice(2),
    ntfy: notification.message.split("\n"),
    teams: card.body[1].facts.map((fact: { title: string; value: string }) => `${fact.title}: ${fact.value}`),
    mail: mail.split("\n").slice(2, 5),
  }).toEqual({ telegram: SHOWN, ntfy: SHOWN, teams: SHOWN, mail: SHOWN });
  expect(logs.filter((line) => /error/i.test(line))).toEqual([]);
});
