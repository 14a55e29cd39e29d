import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { publicFixture, type PublicFixture, type StoredSubmission } from "./public-support.ts";

let f: PublicFixture;
afterEach(() => f?.close());

const json = { accept: "application/json" };

const spamText = (i: number) => ({ email: `winner${i}@promo-mail.test`, message: `Cheap pills, casino bonus and crypto profits! Click now, offer ${i}` });
const hamText = (i: number) => ({ email: `ann${i}@example.com`, message: `Hello, could you send a quote for the kitchen renovation? Ticket ${i}` });

async function post(slug: string, body: Record<string, unknown>): Promise<string> {
  const answer = await f.post(slug, { body, headers: json });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

async function mark(formId: string, id: string, isSpam: boolean): Promise<StoredSubmission> {
  const answer = await f.t.request("PATCH", `/api/forms/${formId}/submissions/${id}`, { key: f.key, body: { isSpam } });
  expect(answer.status).toBe(200);
  return (await answer.json()) as StoredSubmission;
}

async function get(formId: string, id: string): Promise<StoredSubmission> {
  return (await (await f.t.request("GET", `/api/forms/${formId}/submissions/${id}`, { key: f.key })).json()) as StoredSubmission;
}

/** Posts and marks `spam` spam-like and `ham` ham-like submissions, as an owner sorting the inbox would. */
async function teach(formId: string, slug: string, spam: number, ham: number): Promise<void> {
  for (let i = 0; i < spam; i++) await mark(formId, await post(slug, spamText(i)), true);
  for (let i = 0; i < ham; i++) await mark(formId, await post(slug, hamText(i)), false);
}

test("filter: it acts once the account has 20 marks of each kind, then holds what looks like the spam it was shown", async () => {
  f = await publicFixture();
  const form = await f.form();
  await teach(form.id, form.slug, 20, 19);
  const early = await get(form.id, await post(form.slug, spamText(100)));
  expect({ isSpam: early.isSpam, spamScore: early.spamScore }).toEqual({ isSpam: false, spamScore: undefined });
  await mark(form.id, await post(form.slug, hamText(19)), false);
  const caught = await get(form.id, await post(form.slug, spamText(101)));
  expect({ isSpam: caught.isSpam, spamReason: caught.spamReason }).toEqual({ isSpam: true, spamReason: "filter" });
  expect(caught.spamScore!).toBeGreaterThan(0.6);
  expect(caught.spamTokens!.length).toBeGreaterThan(0);
  expect(caught.spamTokens!.length).toBeLessThanOrEqual(5);
  expect(caught.spamTokens!.some((token) => ["casino", "pills", "crypto", "bonus", "profits", "cheap"].includes(token))).toBe(true);
  const kept = await get(form.id, await post(form.slug, hamText(102)));
  expect(kept).toMatchObject({ isSpam: false, spamReason: null });
  expect(kept.spamScore!).toBeLessThan(0.5);
});

test("filter: a mark given twice the same way counts once, so 19 submissions marked spam are not yet enough", async () => {
  f = await publicFixture();
  const form = await f.form();
  await teach(form.id, form.slug, 19, 20);
  const first = (await f.stored(form.id)).find((s) => s.isSpam)!;
  await mark(form.id, first.id, true);
  expect((await get(form.id, await post(form.slug, spamText(200)))).spamScore).toBeUndefined();
});

test("filter: a form can turn it off, or set a threshold no score passes; marks on one form teach the whole account", async () => {
  f = await publicFixture();
  const taught = await f.form();
  const off = await f.form({ spamFilter: { enabled: false } });
  const lenient = await f.form({ spamFilter: { threshold: 1 } });
  await teach(taught.id, taught.slug, 20, 20);
  expect(await get(off.id, await post(off.slug, spamText(300)))).toMatchObject({ isSpam: false, spamReason: null });
  expect((await get(off.id, (await f.stored(off.id))[0]!.id)).spamScore).toBeUndefined();
  const scored = await get(lenient.id, await post(lenient.slug, spamText(301)));
  expect({ isSpam: scored.isSpam, scored: typeof scored.spamScore }).toEqual({ isSpam: false, scored: "number" });
  const read = (await (await f.t.request("GET", `/api/forms/${lenient.id}`, { key: f.key })).json()) as { spamFilter: unknown };
  expect(read.spamFilter).toEqual({ enabled: true, threshold: 1 });
});

test("not spam: what a spam verdict held back is sent once when the owner moves the submission out of spam", async () => {
  f = await publicFixture();
  const form = await f.form({ notificationEmail: "owner@example.com", spamRules: { blockedWords: ["casino"] } });
  const hook = await f.t.request("POST", `/api/forms/${form.id}/webhooks`, { key: f.key, body: { url: "https://hooks.example.com/in" } });
  const webhookId = ((await hook.json()) as { id: string }).id;
  const sent = async () => {
    const notes = (await (await f.t.request("GET", `/api/forms/${form.id}/notifications`, { key: f.key })).json()) as {
      notifications: { submissionId: string; subject: string }[];
    };
    const deliveries = (await (await f.t.request("GET", `/api/forms/${form.id}/webhooks/${webhookId}/deliveries`, { key: f.key })).json()) as {
      deliveries: { submissionId: string }[];
    };
    return { notifications: notes.notifications.map((n) => [n.submissionId, n.subject]), deliveries: deliveries.deliveries.map((d) => d.submissionId) };
  };
  const held = await post(form.slug, { message: "Casino night!", _subject: "Party" });
  const normal = await post(form.slug, { message: "Hello" });
  expect(await sent()).toEqual({ notifications: [[normal, expect.any(String)]], deliveries: [normal] });
  // Out of spam: sent now, with the subject the post asked for; in and out again: nothing more.
  await mark(form.id, held, false);
  await mark(form.id, held, true);
  await mark(form.id, held, false);
  // A submission that was never held (its notification went out) sends nothing again when it comes back from spam.
  await mark(form.id, normal, true);
  await mark(form.id, normal, false);
  const after = await sent();
  expect(after.notifications.toSorted()).toEqual(
    [
      [held, "Party"],
      [normal, expect.any(String)],
    ].toSorted(),
  );
  expect(after.deliveries.toSorted()).toEqual([held, normal].toSorted());
});

test("filter: marks given, changed and taken back keep each kind's token total the sum of the tokens' counts", async () => {
  f = await publicFixture();
  const form = await f.form();
  await teach(form.id, form.slug, 3, 3);
  const [spam, ham] = [(await f.stored(form.id)).find((s) => s.isSpam)!, (await f.stored(form.id)).find((s) => !s.isSpam)!];
  await mark(form.id, spam.id, false);
  await mark(form.id, ham.id, true);
  await mark(form.id, ham.id, false);
  const db = f.t.services.store.db;
  const [account] = await db.all<{ spam: number; ham: number; spamMarks: number; hamMarks: number }>(
    sql`SELECT spam_token_total AS spam, ham_token_total AS ham, spam_marks AS spamMarks, ham_marks AS hamMarks FROM accounts`,
  );
  const [sums] = await db.all<{ spam: number; ham: number }>(sql`SELECT sum(spam) AS spam, sum(ham) AS ham FROM spam_tokens`);
  expect(account).toEqual({ ...sums!, spamMarks: 2, hamMarks: 4 });
  expect(sums!.spam).toBeGreaterThan(0);
});
