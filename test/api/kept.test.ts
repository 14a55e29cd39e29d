import { afterEach, beforeEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { notifications } from "../../src/db/schema.ts";
import { BASE } from "../helpers/app.ts";
import { publicFixture, type PublicFixture } from "./public-support.ts";

// A submission becomes kept in one of three ways: a clean post, the owner moving it out of spam, the person who
// submitted opening their double opt-in link. Each sends the owner's notification and one delivery per webhook
// endpoint exactly once, however often the owner marks it afterwards or the link is opened; spam and a
// submission still waiting for its link send neither. In-process, on both drivers (FORMSVC_TEST_DRIVER).

let fx: PublicFixture;
beforeEach(async () => {
  fx = await publicFixture();
});
afterEach(() => fx.close());

const json = { accept: "application/json" };
const CONFIRMATION = { enabled: true, subject: "Thanks", text: "Hello,\nplease confirm.\n", doubleOptIn: true };

/** A live form that tells its owner, with two webhook endpoints (a signed event and a Slack message). */
async function toldForm(settings: Record<string, unknown> = {}): Promise<{ id: string; slug: string; hooks: string[] }> {
  const form = await fx.form({ notificationEmail: "owner@example.com", spamRules: { blockedWords: ["casino"] }, ...settings });
  const hooks: string[] = [];
  for (const body of [{ url: "https://hooks.example.com/formsvc" }, { url: "https://hooks.example.com/slack", format: "slack" }]) {
    const made = await fx.t.request("POST", `/api/forms/${form.id}/webhooks`, { key: fx.key, body });
    expect(made.status).toBe(201);
    hooks.push(((await made.json()) as { id: string }).id);
  }
  return { ...form, hooks };
}

async function post(slug: string, body: Record<string, unknown>): Promise<string> {
  const answer = await fx.post(slug, { body, headers: json });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

async function mark(formId: string, id: string, patch: Record<string, boolean>): Promise<void> {
  const answer = await fx.t.request("PATCH", `/api/forms/${formId}/submissions/${id}`, { key: fx.key, body: patch });
  expect(answer.status).toBe(200);
}

/** What was sent for one submission: the owner's notifications, and the deliveries to each endpoint of the form. */
async function sent(form: { id: string; hooks: string[] }, submissionId: string): Promise<{ notifications: number; deliveries: number[] }> {
  const log = (await (await fx.t.request("GET", `/api/forms/${form.id}/notifications?limit=100`, { key: fx.key })).json()) as any;
  const told = log.notifications.filter((n: any) => n.kind === "notification" && n.submissionId === submissionId);
  const deliveries = (await (await fx.t.request("GET", `/api/forms/${form.id}/deliveries?limit=100`, { key: fx.key })).json()) as any;
  const mine = deliveries.deliveries.filter((d: any) => d.submissionId === submissionId);
  return { notifications: told.length, deliveries: form.hooks.map((hook) => mine.filter((d: any) => d.webhookId === hook).length) };
}

const ONCE = { notifications: 1, deliveries: [1, 1] };
const NONE = { notifications: 0, deliveries: [0, 0] };

test("a clean post sends once; a spam post sends nothing", async () => {
  const form = await toldForm();
  const clean = await post(form.slug, { name: "Ann", message: "Hello" });
  const spam = await post(form.slug, { name: "Bob", message: "Casino night?" });
  expect(await sent(form, clean)).toEqual(ONCE);
  expect(await sent(form, spam)).toEqual(NONE);
  // Marking a kept submission not spam again, or read, sends nothing more.
  await mark(form.id, clean, { isSpam: false, isRead: true });
  expect(await sent(form, clean)).toEqual(ONCE);
});

test("a submission moved out of spam sends once, however often the owner marks it after", async () => {
  const form = await toldForm();
  const id = await post(form.slug, { name: "Ann", message: "Casino night?" });
  await mark(form.id, id, { isRead: true });
  expect(await sent(form, id)).toEqual(NONE);
  await mark(form.id, id, { isSpam: false });
  expect(await sent(form, id)).toEqual(ONCE);
  await mark(form.id, id, { isSpam: true });
  await mark(form.id, id, { isSpam: false });
  await mark(form.id, id, { isStarred: true });
  expect(await sent(form, id)).toEqual(ONCE);
  const shown = (await (await fx.t.request("GET", `/api/forms/${form.id}`, { key: fx.key })).json()) as any;
  expect(shown.submissionCount).toBe(1);
});

test("a confirmed double opt-in sends once; one still waiting for its link sends nothing", async () => {
  const form = await toldForm({ confirmation: CONFIRMATION });
  const confirmed = await post(form.slug, { name: "Ann", email: "ann@example.com" });
  const waiting = await post(form.slug, { name: "Bob", email: "bob@example.com" });
  expect(await sent(form, confirmed)).toEqual(NONE);
  // Marking it not spam does not keep it: it still waits for its link.
  await mark(form.id, waiting, { isSpam: false });
  const [row] = await fx.t.services.store.db.select().from(notifications).where(eq(notifications.submissionId, confirmed));
  const link = /(\/confirm\/\S+)$/m.exec(row!.body!)![1];
  for (let i = 0; i < 2; i++) expect((await fx.t.app.fetch(new Request(`${BASE}${link}`), { ip: "203.0.113.9" })).status).toBe(200);
  expect(await sent(form, confirmed)).toEqual(ONCE);
  expect(await sent(form, waiting)).toEqual(NONE);
  await mark(form.id, confirmed, { isSpam: false });
  expect(await sent(form, confirmed)).toEqual(ONCE);
});

test("a confirmed submission the owner marked spam meanwhile sends once when it leaves spam, and asks for no second link", async () => {
  const form = await toldForm({ confirmation: CONFIRMATION });
  const id = await post(form.slug, { name: "Ann", email: "ann@example.com" });
  await mark(form.id, id, { isSpam: true });
  const [row] = await fx.t.services.store.db.select().from(notifications).where(eq(notifications.submissionId, id));
  const link = /(\/confirm\/\S+)$/m.exec(row!.body!)![1];
  expect((await fx.t.app.fetch(new Request(`${BASE}${link}`), { ip: "203.0.113.9" })).status).toBe(200);
  expect(await sent(form, id)).toEqual(NONE);
  await mark(form.id, id, { isSpam: false });
  expect(await sent(form, id)).toEqual(ONCE);
  const confirmations = await fx.t.services.store.db.select().from(notifications).where(eq(notifications.submissionId, id));
  expect(confirmations.filter((n) => n.kind === "confirmation").length).toBe(1);
  const shown = (await (await fx.t.request("GET", `/api/forms/${form.id}/submissions/${id}`, { key: fx.key })).json()) as any;
  expect({ isSpam: shown.isSpam, confirmedFrom: shown.confirmedFrom }).toEqual({ isSpam: false, confirmedFrom: "203.0.113.9" });
});
