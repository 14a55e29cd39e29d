import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { notifications } from "../../src/db/schema.ts";
import { publicFixture, type PublicFixture } from "./public-support.ts";
import { BASE } from "../helpers/app.ts";

// The confirmation email's settings and its entries in the delivery log, in-process (no sender runs: live
// confirmations stay pending), on both drivers: what is queued, what is refused and why, and double opt-in.

let fx: PublicFixture;
beforeEach(async () => {
  fx = await publicFixture();
});
afterEach(() => fx.close());

const json = { accept: "application/json" };
const CONFIRMATION = { enabled: true, subject: "Thanks, {{name}}", text: "Hello {{name}},\nwe got your message to {{form}}.\n" };

async function post(slug: string, body: Record<string, unknown>): Promise<string> {
  const answer = await fx.post(slug, { body, headers: json });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

async function log(formId: string, key = fx.key): Promise<any[]> {
  const answer = await fx.t.request("GET", `/api/forms/${formId}/notifications?limit=100`, { key });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { notifications: any[] }).notifications.filter((n) => n.kind === "confirmation");
}

async function list(formId: string, filter: string): Promise<any[]> {
  const answer = await fx.t.request("GET", `/api/forms/${formId}/submissions?filter=${filter}`, { key: fx.key });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { submissions: any[] }).submissions;
}

/** The text a queued confirmation will carry (the API lists the entry, not its body). */
async function bodyOf(notificationId: string): Promise<string> {
  const [row] = await fx.t.services.store.db.select().from(notifications).where(eq(notifications.id, notificationId));
  return row!.body!;
}

describe("the setting", () => {
  test("is shown with every default filled in, and null until set", async () => {
    const made = await fx.t.request("POST", "/api/forms", { key: fx.key, body: { name: "Contact", confirmation: CONFIRMATION } });
    expect(made.status).toBe(201);
    expect(((await made.json()) as any).confirmation).toEqual({
      ...CONFIRMATION,
      field: "email",
      fromName: null,
      replyTo: null,
      doubleOptIn: false,
      optInDays: 7,
      perAddressHours: 24,
      perFormDaily: 200,
    });
    const plain = await fx.form();
    const cleared = await fx.t.request("PATCH", `/api/forms/${plain.id}`, { key: fx.key, body: { confirmation: null } });
    expect(((await cleared.json()) as any).confirmation).toBeNull();
  });

  test.each([
    [{ ...CONFIRMATION, optInDays: 31 }, "confirmation.optInDays must be from 1 to 30."],
    [{ ...CONFIRMATION, replyTo: "a@b.com, c@d.com" }, "confirmation.replyTo must be one email address such as you@example.com."],
    [{ ...CONFIRMATION, subject: "Hi\r\nBcc: x@example.com" }, "confirmation.subject must be one line."],
    [{ ...CONFIRMATION, fromName: "Ann\nBcc: x@example.com" }, "confirmation.fromName must be one line."],
    [{ ...CONFIRMATION, cc: "x@example.com" }, undefined],
  ])("a bad setting is 400 invalid_body naming the field: %j", async (confirmation, message) => {
    const answer = await fx.t.request("POST", "/api/forms", { key: fx.key, body: { name: "Contact", confirmation } });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as any;
    expect(body.error.code).toBe("invalid_body");
    if (message) expect(body.error.message).toBe(message);
  });
});

describe("the delivery log", () => {
  test("a post queues one confirmation to the named field's address, its text the owner's with the fields filled in", async () => {
    const form = await fx.form({ name: "Contact", confirmation: { ...CONFIRMATION, field: "contact", replyTo: "owner@example.com" } });
    const id = await post(form.slug, { name: "Ann", contact: " Ann@Example.com " });
    const [entry] = await log(form.id);
    expect(entry).toEqual({
      id: expect.stringMatching(/^ntf_/),
      kind: "confirmation",
      submissionId: id,
      to: "ann@example.com",
      subject: "Thanks, Ann",
      replyTo: "owner@example.com",
      status: "pending",
      attempts: 0,
      lastError: null,
      createdAt: expect.any(String),
      sentAt: null,
      nextAttemptAt: expect.any(String),
      reason: null,
    });
    expect(await bodyOf(entry.id)).toBe("Hello Ann,\nwe got your message to Contact.\n");
  });

  test("refusals are entries with their reason: no address, spam, the per-address and per-form limits", async () => {
    const form = await fx.form({ confirmation: { ...CONFIRMATION, perFormDaily: 3 } });
    await post(form.slug, { name: "No address" });
    await post(form.slug, { name: "Two", email: "a@example.com, b@example.com" });
    await post(form.slug, { name: "Bot", email: "bot@example.com", _gotcha: "x" });
    await post(form.slug, { name: "Ann", email: "ann@example.com" });
    await post(form.slug, { name: "Ann again", email: "ANN@example.com" });
    await post(form.slug, { name: "Bob", email: "bob@example.com" });
    await post(form.slug, { name: "Cy", email: "cy@example.com" });
    await post(form.slug, { name: "Dee", email: "dee@example.com" });
    const entries = (await log(form.id)).reverse().map((n) => [n.to, n.status, n.reason]);
    expect(entries).toEqual([
      ["", "refused", "invalid_address"],
      ["a@example.com, b@example.com", "refused", "invalid_address"],
      ["bot@example.com", "refused", "spam"],
      ["ann@example.com", "pending", null],
      ["ann@example.com", "refused", "per_address_limit"],
      ["bob@example.com", "pending", null],
      ["cy@example.com", "pending", null],
      ["dee@example.com", "refused", "per_form_daily_limit"],
    ]);
    // Every post was stored all the same: a refused confirmation refuses nothing else.
    expect((await fx.stored(form.id)).length).toBe(8);
  });

  test("the per-address limit counts the address as delivered: variants of one inbox get no second mail", async () => {
    const form = await fx.form({ confirmation: CONFIRMATION });
    const variants = ["bomb@x.test", "b\u0007omb@x.test", "bom\u0000b@x.test", "bomb@\uff58.test", "bomb@x\u00ad.test", "bomb@x.test\u0085", "BOMB@X.TEST"];
    for (const email of variants) await post(form.slug, { name: "Bomb", email });
    const entries = (await log(form.id)).reverse();
    // One mail is queued; every other post was refused, as the same inbox or as no address at all.
    expect(entries.filter((n) => n.status === "pending").map((n) => n.to)).toEqual(["bomb@x.test"]);
    expect(entries.map((n) => n.reason)).toEqual([
      null,
      "invalid_address",
      "invalid_address",
      "per_address_limit",
      "invalid_address",
      "invalid_address",
      "per_address_limit",
    ]);
  });

  test("a test-mode form's confirmation is recorded, never to be sent", async () => {
    const account = await fx.t.account("tester");
    const testKey = await account.key({ type: "test" });
    const made = await fx.t.request("POST", "/api/forms", { key: testKey, body: { name: "Staging", confirmation: CONFIRMATION } });
    const form = (await made.json()) as { id: string; slug: string };
    await post(form.slug, { name: "Ann", email: "ann@example.com" });
    expect((await log(form.id, testKey)).map((n) => [n.status, n.reason, n.nextAttemptAt])).toEqual([["recorded", null, null]]);
  });
});

describe("double opt-in", () => {
  const optIn = { ...CONFIRMATION, doubleOptIn: true, optInDays: 2 };

  test("a submission waits unconfirmed, outside every list but unconfirmed, until its link is opened; then the owner is told once", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com", confirmation: optIn });
    const hook = await fx.t.request("POST", `/api/forms/${form.id}/webhooks`, { key: fx.key, body: { url: "https://hooks.example.com/formsvc" } });
    expect(hook.status).toBe(201);
    const deliveries = async () =>
      ((await (await fx.t.request("GET", `/api/forms/${form.id}/deliveries`, { key: fx.key })).json()) as any).deliveries.map((d: any) => d.submissionId);
    const id = await post(form.slug, { name: "Ann", email: "ann@example.com", _subject: "Sign-up from the site", _replyto: "ann.home@example.com" });
    expect(await list(form.id, "all")).toEqual([]);
    expect(await deliveries()).toEqual([]);
    const [waiting] = await list(form.id, "unconfirmed");
    expect(waiting).toMatchObject({ id, confirmedAt: null, confirmedFrom: null });
    const form0 = (await (await fx.t.request("GET", `/api/forms/${form.id}`, { key: fx.key })).json()) as any;
    expect(form0.submissionCount).toBe(0);
    const all = async () => ((await (await fx.t.request("GET", `/api/forms/${form.id}/notifications`, { key: fx.key })).json()) as any).notifications;
    expect((await all()).map((n: any) => n.kind)).toEqual(["confirmation"]);

    const link = /^http:\/\/formsvc\.test(\/confirm\/\S+)$/m.exec(await bodyOf((await log(form.id))[0].id));
    expect(link).not.toBeNull();
    const opened = await fx.t.app.fetch(new Request(`${BASE}${link![1]}`), { ip: "203.0.113.9" });
    expect(opened.status).toBe(200);
    expect(await opened.text()).toContain("your address is confirmed");
    const again = await fx.t.app.fetch(new Request(`${BASE}${link![1]}`), { ip: "203.0.113.9" });
    expect(await again.text()).toContain("already confirmed");

    const [confirmed] = await list(form.id, "all");
    expect(confirmed).toMatchObject({ id, confirmedAt: expect.stringMatching(/Z$/), confirmedFrom: "203.0.113.9" });
    expect(await list(form.id, "unconfirmed")).toEqual([]);
    expect((await all()).map((n: any) => n.kind).sort()).toEqual(["confirmation", "notification"]);
    // The owner's notification is the one the post asked for, though it waited for the link.
    const told = (await all()).find((n: any) => n.kind === "notification");
    expect({ subject: told.subject, replyTo: told.replyTo }).toEqual({ subject: "Sign-up from the site", replyTo: "ann.home@example.com" });
    // The webhook event held back is written once, by the first opening only.
    expect(await deliveries()).toEqual([id]);
  });

  test("the page a link opens speaks the visitor's language: the email's, carried on the link, else the browser's", async () => {
    const form = await fx.form({ confirmation: optIn });
    await post(form.slug, { name: "Jan", email: "jan@example.com", _language: "de" });
    const [mail] = await log(form.id);
    const link = /^http:\/\/formsvc\.test(\/confirm\/\S+)$/m.exec(await bodyOf(mail.id))![1]!;
    expect(link).toEndWith("?_language=de");
    const opened = await fx.t.app.fetch(new Request(`${BASE}${link}`), { ip: "203.0.113.9" });
    const page = await opened.text();
    expect({ status: opened.status, lang: /<html lang="(\w+)">/.exec(page)?.[1], h1: /<h1>([^<]*)<\/h1>/.exec(page)?.[1] }).toEqual({
      status: 200,
      lang: "de",
      h1: "Bestätigt",
    });
    expect(page).toContain("Vielen Dank: Ihre Adresse ist bestätigt.");
    // A link without a language (an English email), opened by a French browser: French.
    const english = link.replace(/\?.*$/, "");
    const french = await fx.t.app.fetch(new Request(`${BASE}${english}`, { headers: { "accept-language": "fr-CH, en;q=0.5" } }), { ip: "203.0.113.9" });
    expect(/<h1>([^<]*)<\/h1>/.exec(await french.text())?.[1]).toBe("Déjà confirmé");
    const forged = await fx.t.app.fetch(new Request(`${BASE}/confirm/x.y.z?_language=ja`), { ip: "203.0.113.9" });
    expect({ status: forged.status, h1: /<h1>([^<]*)<\/h1>/.exec(await forged.text())?.[1] }).toEqual({ status: 404, h1: "無効なリンク" });
  });

  test("a forged link is refused and confirms nothing", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com", confirmation: optIn });
    const id = await post(form.slug, { name: "Ann", email: "ann@example.com" });
    const forged = await fx.t.app.fetch(new Request(`${BASE}/confirm/${id}.zzzzzz.${"A".repeat(43)}`), { ip: "127.0.0.1" });
    expect(forged.status).toBe(404);
    expect(await forged.text()).toContain("not valid");
    expect((await list(form.id, "unconfirmed")).length).toBe(1);
  });

  test("unconfirmed submissions are purged once their window has passed; confirmed ones stay", async () => {
    const form = await fx.form({ confirmation: optIn });
    await post(form.slug, { name: "Ann", email: "ann@example.com" });
    await post(form.slug, { name: "Bob", email: "bob@example.com" });
    const link = /(\/confirm\/\S+)$/m.exec(await bodyOf((await log(form.id)).find((n) => n.to === "bob@example.com").id))!;
    await fx.t.app.fetch(new Request(`${BASE}${link[1]}`), { ip: "127.0.0.1" });
    expect(await fx.t.services.retention.purge(Date.now() + 1 * 86_400_000)).toEqual({});
    expect(await fx.t.services.retention.purge(Date.now() + 2 * 86_400_000 + 1000)).toEqual({ [form.id]: 1 });
    expect(await list(form.id, "unconfirmed")).toEqual([]);
    expect((await list(form.id, "all")).map((s) => s.data.name)).toEqual(["Bob"]);
    const shown = (await (await fx.t.request("GET", `/api/forms/${form.id}`, { key: fx.key })).json()) as any;
    expect(shown.submissionCount).toBe(1);
  });
});

describe("out of spam", () => {
  const rules = { blockedWords: ["casino"] };
  const mark = async (formId: string, id: string, isSpam: boolean) => {
    const answer = await fx.t.request("PATCH", `/api/forms/${formId}/submissions/${id}`, { key: fx.key, body: { isSpam } });
    expect(answer.status).toBe(200);
  };
  const entries = async (formId: string) => (await log(formId)).map((n) => ({ to: n.to, status: n.status, reason: n.reason })).reverse();

  test("a submission the owner moves out of spam gets its confirmation then, once", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com", confirmation: CONFIRMATION, spamRules: rules });
    const id = await post(form.slug, { name: "Ann", email: "ann@example.com", message: "Casino night?" });
    expect(await entries(form.id)).toEqual([{ to: "ann@example.com", status: "refused", reason: "spam" }]);
    await mark(form.id, id, false);
    await mark(form.id, id, true);
    await mark(form.id, id, false);
    expect(await entries(form.id)).toEqual([
      { to: "ann@example.com", status: "refused", reason: "spam" },
      { to: "ann@example.com", status: "pending", reason: null },
    ]);
    expect(await bodyOf((await log(form.id))[0].id)).toBe("Hello Ann,\nwe got your message to Contact.\n");
  });

  test("on a double opt-in form, a submission moved out of spam waits for its link before the owner hears of it", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com", confirmation: { ...CONFIRMATION, doubleOptIn: true }, spamRules: rules });
    const id = await post(form.slug, { name: "Ann", email: "ann@example.com", message: "Casino night?" });
    await mark(form.id, id, false);
    expect((await list(form.id, "unconfirmed")).map((s) => s.id)).toEqual([id]);
    expect(await list(form.id, "all")).toEqual([]);
    const kinds = async () =>
      ((await (await fx.t.request("GET", `/api/forms/${form.id}/notifications`, { key: fx.key })).json()) as any).notifications.map((n: any) => n.kind);
    expect(await kinds()).toEqual(["confirmation", "confirmation"]);
    const link = /(\/confirm\/\S+)$/m.exec(await bodyOf((await log(form.id)).find((n) => n.status === "pending").id))!;
    expect((await fx.t.app.fetch(new Request(`${BASE}${link[1]}`), { ip: "203.0.113.9" })).status).toBe(200);
    expect((await list(form.id, "all")).map((s) => s.id)).toEqual([id]);
    expect((await kinds()).toSorted()).toEqual(["confirmation", "confirmation", "notification"]);
  });
});
