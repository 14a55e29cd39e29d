import { afterEach, beforeEach, expect, test } from "bun:test";
import { pullFormsFile, readFormsFile, type FormsApi } from "../../src/forms-as-code/file.ts";
import { applyPlan, planForms, planLines } from "../../src/forms-as-code/plan.ts";
import { operator } from "../../src/services/principal.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

// The forms file's comparison rules, in-process on the services (the local CLI's path): what counts as a change
// of each kind of setting, and that every file applied once plans no change after.

const SECRET = `whsec_${Buffer.from("twenty-four bytes or more!!").toString("base64")}`;
const OTHER = `whsec_${Buffer.from("another secret, 24 bytes+").toString("base64")}`;

let t: TestApp;
let api: FormsApi;

beforeEach(async () => {
  t = await testApp();
  const principal = operator((await t.services.accounts.create("file")).id, "live");
  const { forms, webhooks, destinations } = t.services;
  api = {
    forms: {
      list: () => forms.list(principal),
      create: (body) => forms.create(principal, body),
      update: (ref, body) => forms.update(principal, ref, body),
      remove: (ref) => forms.remove(principal, ref),
    },
    webhooks: {
      list: (ref) => webhooks.list(principal, ref),
      add: (ref, body) => webhooks.create(principal, ref, body),
      remove: (ref, id) => webhooks.remove(principal, ref, id),
      update: (ref, id, body) => webhooks.update(principal, ref, id, body),
    },
    destinations: {
      list: (ref) => destinations.list(principal, ref),
      add: (ref, body) => destinations.create(principal, ref, body),
      remove: (ref, id) => destinations.remove(principal, ref, id),
      update: (ref, id, body) => destinations.update(principal, ref, id, body),
    },
  };
});
afterEach(() => t.close());

/** The plan's lines for a file, with this environment. */
async function plan(file: object, env: Record<string, string> = {}) {
  return planLines(await planForms(api, await readFormsFile(JSON.stringify(file), env)));
}

async function apply(file: object, env: Record<string, string> = {}) {
  return applyPlan(api, await planForms(api, await readFormsFile(JSON.stringify(file), env)));
}

test("settings the form fills in (confirmation, spamFilter, captcha) match on what the file gives; a second plan is empty", async () => {
  const file = {
    forms: {
      signup: {
        name: "Signup",
        confirmation: { enabled: true, subject: "Thanks", text: "We got it" },
        spamFilter: { enabled: false },
        captcha: { provider: "altcha" },
        allowedDomains: ["Example.COM"],
      },
    },
  };
  expect(await apply(file)).toBe(1);
  expect(await plan(file)).toEqual([]);
  expect(await apply(file)).toBe(0);
});

test("spam rules are compared both ways: a rule taken out of the file is a change", async () => {
  await apply({ forms: { contact: { name: "Contact", spamRules: { blockedWords: ["casino"], maxLinks: 2 } } } });
  expect(await plan({ forms: { contact: { name: "Contact", spamRules: { blockedWords: ["casino"] } } } })).toEqual([
    '~ contact.spamRules: {"blockedWords":["casino"],"maxLinks":2} → {"blockedWords":["casino"]}',
  ]);
});

test("fields: one line for each added, removed or changed field, and one for a new order alone", async () => {
  const fields = [
    { name: "email", type: "email", required: true },
    { name: "message", type: "textarea" },
    { name: "phone", type: "tel" },
  ];
  await apply({ forms: { contact: { name: "Contact", fields } } });
  expect(
    await plan({
      forms: { contact: { name: "Contact", fields: [{ name: "email", type: "email" }, fields[1], { name: "company", type: "text" }] } },
    }),
  ).toEqual([
    '~ contact.fields.email: {"type":"email","required":true} → {"type":"email"}',
    '+ contact.fields.company: {"type":"text"}',
    '- contact.fields.phone: {"type":"tel"}',
  ]);
  expect(await plan({ forms: { contact: { name: "Contact", fields: [fields[1], fields[0], fields[2]] } } })).toEqual([
    '~ contact.fields: ["email","message","phone"] → ["message","email","phone"]',
  ]);
});

test("a captcha's secret is never shown and not compared; a new provider is a change, its secret (sensitive)", async () => {
  const captcha = (provider: string) => ({ forms: { contact: { name: "Contact", captcha: { provider, secret: `\${CAPTCHA}` } } } });
  await apply(captcha("turnstile"), { CAPTCHA: "first-secret" });
  expect(await plan(captcha("turnstile"), { CAPTCHA: "another-secret" })).toEqual([]);
  expect(await plan(captcha("hcaptcha"), { CAPTCHA: "first-secret" })).toEqual([
    '~ contact.captcha: {"provider":"turnstile","siteKey":null} → {"provider":"hcaptcha","secret":(sensitive)}',
  ]);
});

test("a webhook whose secret changed in the environment is replaced, with the new secret", async () => {
  const file = { forms: { contact: { name: "Contact", webhooks: [{ url: "https://hooks.example.com/a", secret: `\${HOOK}` }] } } };
  await apply(file, { HOOK: SECRET });
  const [before] = await api.webhooks.list("contact");
  expect(await plan(file, { HOOK: SECRET })).toEqual([]);
  expect(await plan(file, { HOOK: OTHER })).toEqual([
    '~ contact.webhooks[https://hooks.example.com/a]: {"description":null,"format":"standard","when":[],"url":"https://hooks.example.com/a","secret":(sensitive)} → {"url":"https://hooks.example.com/a","secret":(sensitive)}',
  ]);
  await apply(file, { HOOK: OTHER });
  const [after] = (await api.webhooks.list("contact")) as { id: string; secretPrefix: string }[];
  expect(after!.id).not.toBe((before as { id: string }).id);
  expect(after!.secretPrefix).toBe(`${OTHER.slice(0, 10)}…`);
});

test("a webhook whose conditions alone changed is updated in place (its id and secret kept); another change replaces it", async () => {
  const hook = (extra: object = {}) => ({
    forms: { contact: { name: "Contact", webhooks: [{ url: "https://hooks.example.com/a", secret: `\${HOOK}`, ...extra }] } },
  });
  await apply(hook(), { HOOK: SECRET });
  const [made] = (await api.webhooks.list("contact")) as { id: string; secretPrefix: string }[];
  const when = [{ field: "topic", op: "equals", value: "sales" }];
  expect(await apply(hook({ when }), { HOOK: SECRET })).toBe(1);
  expect(await api.webhooks.list("contact")).toEqual([expect.objectContaining({ id: made!.id, secretPrefix: made!.secretPrefix, when })]);
  expect(await plan(hook({ when }), { HOOK: SECRET })).toEqual([]);
  expect(await apply(hook({ when, description: "CRM" }), { HOOK: SECRET })).toBe(2);
  const [replaced] = (await api.webhooks.list("contact")) as { id: string; description: string }[];
  expect({ sameId: replaced!.id === made!.id, description: replaced!.description }).toEqual({ sameId: false, description: "CRM" });
});

test("a pulled file plans no change on the instance it came from, every setting not its default written", async () => {
  await api.forms.create({
    name: "Everything",
    slug: "everything",
    isActive: false,
    notificationEmail: "owner@example.com",
    redirectUrl: "https://example.com/thanks",
    fileUploads: true,
    retentionDays: 30,
    spamRetentionDays: null,
    captcha: { provider: "recaptcha", secret: "s" },
    fields: [{ name: "email", type: "email", required: true, label: "Your email" }],
    otherFields: "drop",
    confirmation: { enabled: true, subject: "Thanks", text: "Hello", doubleOptIn: true },
    spamRules: { blockDisposableEmails: true },
    spamFilter: { threshold: 0.9 },
  });
  await api.forms.create({ name: "Plain", slug: "plain" });
  const pulled = await pullFormsFile(api, "https://forms.example.com");
  expect(pulled.forms).toMatchObject({
    plain: { name: "Plain" },
    everything: { captcha: { provider: "recaptcha", secret: `\${FORMSVC_EVERYTHING_CAPTCHA_SECRET}` } },
  });
  expect(Object.keys((pulled.forms as Record<string, object>).plain!)).toEqual(["name"]);
  expect(await plan(pulled, { FORMSVC_EVERYTHING_CAPTCHA_SECRET: "s" })).toEqual([]);
});

test("POST .../webhooks takes a secret: whsec_ and base64, or the base64 alone (kept with its prefix); a short one is refused", async () => {
  const admin = await (await t.account()).key();
  const form = await t.request("POST", "/api/forms", { key: admin, body: { name: "Hooks" } });
  const { id } = (await form.json()) as { id: string };
  const hex = "9f".repeat(32);
  const made = await t.request("POST", `/api/forms/${id}/webhooks`, { key: admin, body: { url: "https://hooks.example.com/x", secret: hex } });
  expect(made.status).toBe(201);
  expect(((await made.json()) as { secret: string }).secret).toBe(`whsec_${hex}`);
  const short = await t.request("POST", `/api/forms/${id}/webhooks`, { key: admin, body: { url: "https://hooks.example.com/y", secret: "whsec_c2hvcnQ=" } });
  expect(short.status).toBe(400);
  expect(((await short.json()) as { error: { field: string } }).error.field).toBe("secret");
});

test("a webhook secret given without its prefix plans no change once applied", async () => {
  const file = { forms: { contact: { name: "Contact", webhooks: [{ url: "https://hooks.example.com/a", secret: `\${HOOK}` }] } } };
  await apply(file, { HOOK: "ab".repeat(32) });
  expect(await plan(file, { HOOK: "ab".repeat(32) })).toEqual([]);
});

test("the form's own page: given in part, it matches once applied; left out, it goes back to none", async () => {
  const file = { forms: { contact: { name: "Contact", page: { enabled: true, title: "Write to us" } } } };
  expect(await apply(file)).toBe(1);
  expect(await plan(file)).toEqual([]);
  const [line] = await plan({ forms: { contact: { name: "Contact" } } });
  expect(line).toStartWith('- contact.page: {"enabled":true,"title":"Write to us"');
  await apply({ forms: { contact: { name: "Contact" } } });
  expect(await plan({ forms: { contact: { name: "Contact" } } })).toEqual([]);
});

const TELEGRAM = { botToken: "123456:first-bot-token", chatId: "-100123" };

test("a destination applied once plans no change; its secret is not compared; a changed setting updates it in place", async () => {
  const telegram = (extra: object = {}) => ({
    forms: { contact: { name: "Contact", destinations: [{ type: "telegram", config: { botToken: `\${BOT}`, chatId: -100123 }, ...extra }] } },
  });
  expect(await apply(telegram(), { BOT: TELEGRAM.botToken })).toBe(2);
  const [made] = (await api.destinations.list("contact")) as { id: string }[];
  expect(made).toMatchObject({ type: "telegram", config: { chatId: "-100123" }, enabled: true });
  expect(await plan(telegram(), { BOT: TELEGRAM.botToken })).toEqual([]);
  // The API never shows the token: another one in the environment is not a change (docs/cli.md).
  expect(await plan(telegram(), { BOT: "654321:another-bot-token" })).toEqual([]);
  expect(await plan(telegram({ enabled: false }), { BOT: TELEGRAM.botToken })).toEqual([
    '~ contact.destinations[telegram:-100123]: {"fields":null,"when":[],"enabled":true,"type":"telegram","config":{"chatId":"-100123"}} → {"type":"telegram","config":{"botToken":(sensitive),"chatId":-100123},"enabled":false}',
  ]);
  expect(await apply(telegram({ enabled: false }), { BOT: TELEGRAM.botToken })).toBe(1);
  expect(await api.destinations.list("contact")).toEqual([expect.objectContaining({ id: made!.id, enabled: false })]);
  expect(await plan(telegram({ enabled: false }), { BOT: TELEGRAM.botToken })).toEqual([]);
});

test("a destination is known by its type and target: another chat is a new one; Teams ones (their address a secret) by their order", async () => {
  const teams = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      type: "teams",
      config: { url: `\${TEAMS_${i}}` },
      when: i ? [{ field: "topic", op: "equals", value: "sales" }] : [],
    }));
  const env = { TEAMS_0: "https://hooks.example.com/teams/a", TEAMS_1: "https://hooks.example.com/teams/b" };
  const file = (chatId: string, n: number) => ({
    forms: { contact: { name: "Contact", destinations: [{ type: "telegram", config: { botToken: `\${BOT}`, chatId } }, ...teams(n)] } },
  });
  await apply(file("-100123", 2), { ...env, BOT: TELEGRAM.botToken });
  expect(await plan(file("-100123", 2), { ...env, BOT: TELEGRAM.botToken })).toEqual([]);
  expect(await plan(file("-100999", 1), { ...env, BOT: TELEGRAM.botToken })).toEqual([
    '+ contact.destinations[telegram:-100999]: {"type":"telegram","config":{"botToken":(sensitive),"chatId":"-100999"}}',
    "- contact.destinations[telegram:-100123]",
    "- contact.destinations[teams#2]",
  ]);
});

test("pull writes a destination with a reference for each secret its type takes, which plans no change; a written-out secret is refused", async () => {
  await api.forms.create({ name: "Contact", slug: "contact" });
  await api.destinations.add("contact", { type: "telegram", config: TELEGRAM, fields: { email: "Email" } });
  await api.destinations.add("contact", { type: "mailchimp", config: { apiKey: "0123abcd-us21", audienceId: "a1b2c3" } });
  await api.destinations.add("contact", { type: "ntfy", config: { topic: "forms-7c1e" }, enabled: false });
  const pulled = await pullFormsFile(api, "https://forms.example.com");
  expect((pulled.forms as Record<string, Record<string, unknown>>).contact!.destinations).toEqual([
    { type: "telegram", config: { chatId: "-100123", botToken: `\${FORMSVC_CONTACT_DESTINATIONS_1_BOT_TOKEN}` }, fields: { email: "Email" } },
    { type: "mailchimp", config: { audienceId: "a1b2c3", status: "pending", emailField: "email", apiKey: `\${FORMSVC_CONTACT_DESTINATIONS_2_API_KEY}` } },
    { type: "ntfy", config: { topic: "forms-7c1e", token: `\${FORMSVC_CONTACT_DESTINATIONS_3_TOKEN:-}` }, enabled: false },
  ]);
  const env = {
    FORMSVC_CONTACT_DESTINATIONS_1_BOT_TOKEN: TELEGRAM.botToken,
    FORMSVC_CONTACT_DESTINATIONS_2_API_KEY: "0123abcd-us21",
    FORMSVC_CONTACT_DESTINATIONS_3_TOKEN: "tk_ntfy",
  };
  expect(await plan(pulled, env)).toEqual([]);
  // The ntfy token's variable may stay unset: the topic may have no token.
  const { FORMSVC_CONTACT_DESTINATIONS_3_TOKEN: _, ...withoutNtfy } = env;
  expect(await plan(pulled, withoutNtfy)).toEqual([]);
  const literal = structuredClone(pulled) as { forms: { contact: { destinations: { config: Record<string, unknown> }[] } } };
  literal.forms.contact.destinations[0]!.config.botToken = TELEGRAM.botToken;
  await expect(plan(literal, env)).rejects.toThrow("forms.contact.destinations.0.config.botToken is a secret");
});
