import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { publicFixture, type PublicFixture } from "./public-support.ts";
import { apiError } from "./scenario.ts";

// The outbox as the API shows it, in-process (no sender runs here, so live notifications stay pending):
// which submissions get a notification, what it holds, and the list's paging.

let fx: PublicFixture;
beforeEach(async () => {
  fx = await publicFixture();
});
afterEach(() => fx.close());

const json = { accept: "application/json" };

async function post(slug: string, body: Record<string, unknown>): Promise<string> {
  const answer = await fx.post(slug, { body, headers: json });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

async function list(formId: string, query = "", key = fx.key) {
  const answer = await fx.t.request("GET", `/api/forms/${formId}/notifications${query}`, { key });
  return { status: answer.status, body: (await answer.json()) as any };
}

const pending = (submissionId: string, subject: string, replyTo: string | null = null) => ({
  id: expect.stringMatching(/^ntf_/),
  kind: "notification",
  submissionId,
  to: "owner@example.com",
  subject,
  replyTo,
  status: "pending",
  attempts: 0,
  lastError: null,
  createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
  sentAt: null,
  nextAttemptAt: expect.stringMatching(/Z$/),
  reason: null,
});

describe("which submissions are to be mailed", () => {
  test("a live form with notificationEmail: one pending notification, with _subject and _replyto, which are not stored", async () => {
    const form = await fx.form({ name: "Contact", notificationEmail: "owner@example.com" });
    const id = await post(form.slug, { name: "Ann", _subject: "Quote request", _replyto: "ann@example.com" });
    expect(await list(form.id)).toEqual({
      status: 200,
      body: { notifications: [pending(id, "Quote request", "ann@example.com")], pagination: { limit: 50, offset: 0, hasMore: false } },
    });
    expect((await fx.stored(form.id)).map((s) => s.data)).toEqual([{ name: "Ann" }]);
  });

  test("without _subject the subject names the form; a _replyto that is no address is dropped, and the post still succeeds", async () => {
    const form = await fx.form({ name: "Support", notificationEmail: "owner@example.com" });
    const id = await post(form.slug, { question: "Why?", _replyto: "not an address\r\nBcc: victim@example.com" });
    expect((await list(form.id)).body.notifications).toEqual([pending(id, "New submission: Support")]);
  });

  test("a filled honeypot: stored as spam, but no notification at all", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    await post(form.slug, { name: "Bot", _gotcha: "http://spam.example" });
    expect((await fx.stored(form.id)).map((s) => s.isSpam)).toEqual([true]);
    expect((await list(form.id)).body.notifications).toEqual([]);
  });

  test("a form without notificationEmail: nothing to mail", async () => {
    const form = await fx.form();
    await post(form.slug, { name: "Ann" });
    expect((await list(form.id)).body.notifications).toEqual([]);
  });

  test("a test-mode form's notification is recorded, never to be sent", async () => {
    const account = await fx.t.account("tester");
    const testKey = await account.key({ type: "test" });
    const created = await fx.t.request("POST", "/api/forms", { key: testKey, body: { name: "Staging", notificationEmail: "owner@example.com" } });
    const form = (await created.json()) as { id: string; slug: string };
    const id = await post(form.slug, { name: "Ann" });
    expect((await list(form.id, "", testKey)).body.notifications).toEqual([
      { ...pending(id, "New submission: Staging"), status: "recorded", nextAttemptAt: null },
    ]);
  });

  test("deleting the submission takes its notification with it", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    const kept = await post(form.slug, { n: "1" });
    const gone = await post(form.slug, { n: "2" });
    const deleted = await fx.t.request("DELETE", `/api/forms/${form.id}/submissions/${gone}`, { key: fx.key });
    expect(deleted.status).toBe(204);
    expect((await list(form.id)).body.notifications.map((n: { submissionId: string }) => n.submissionId)).toEqual([kept]);
  });
});

describe("the list", () => {
  test("newest first, paged by limit and offset", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await post(form.slug, { n: String(i) }));
    const first = await list(form.id, "?limit=2");
    expect(first.body.notifications.map((n: { submissionId: string }) => n.submissionId)).toEqual([ids[2], ids[1]]);
    expect(first.body.pagination).toEqual({ limit: 2, offset: 0, hasMore: true });
    const second = await list(form.id, "?limit=2&offset=2");
    expect(second.body.notifications.map((n: { submissionId: string }) => n.submissionId)).toEqual([ids[0]]);
    expect(second.body.pagination).toEqual({ limit: 2, offset: 2, hasMore: false });
  });

  test.each([
    ["limit=0", "limit"],
    ["limit=101", "limit"],
    ["limit=abc", "limit"],
    ["offset=-1", "offset"],
  ])("%s is refused with 400 naming %s", async (query, field) => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    expect(await list(form.id, `?${query}`)).toEqual({ status: 400, body: apiError("invalid_parameter", field) });
  });

  test("the form is found by its slug too", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    const id = await post(form.slug, { n: "1" });
    expect((await list(form.slug)).body.notifications.map((n: { submissionId: string }) => n.submissionId)).toEqual([id]);
  });
});

describe("a submission the owner marks spam before its mail went out", () => {
  test("is held back from the sender, and goes out if it is unmarked", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    const id = await post(form.slug, { name: "Looks fine" });
    const later = Date.now() + 60_000;
    const queued = (await list(form.id)).body.notifications[0].id as string;
    // Each look claims for a moment only, as a sender that finds it due would, so that the next look may claim it again.
    let look = 0;
    const dueIds = async () => (await fx.t.services.notifications.claimDue(`sender-${look++}`, later + look * 10, 1, 10)).map((n) => n.id);
    expect(await dueIds()).toEqual([queued]);

    const marked = await fx.t.request("PATCH", `/api/forms/${form.id}/submissions/${id}`, { key: fx.key, body: { isSpam: true } });
    expect(marked.status).toBe(200);
    expect(await dueIds()).toEqual([]);
    // Nothing is due, so the sender's timer is not set for it (no wake-ups for a held-back mail).
    expect(await fx.t.services.notifications.nextDueAt()).toBeNull();

    await fx.t.request("PATCH", `/api/forms/${form.id}/submissions/${id}`, { key: fx.key, body: { isSpam: false } });
    expect(await dueIds()).toEqual([queued]);
  });
});

describe("several senders on one database", () => {
  test("a claimed notification is not claimed again until its lease ends, and only its holder records it", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    await post(form.slug, { name: "Ann" });
    const notifications = fx.t.services.notifications;
    const now = Date.now();
    const first = await notifications.claimDue("server-a", now, 10_000, 10);
    expect(first.map((n) => n.to)).toEqual(["owner@example.com"]);
    expect(await notifications.claimDue("server-b", now + 1, 10_000, 10)).toEqual([]);
    // The sender's timer wakes when the lease ends, not before.
    expect(await notifications.nextDueAt()).toBe(now + 10_001);
    // server-a died without a word: once its lease is over, another takes the notification.
    const taken = await notifications.claimDue("server-b", now + 10_001, 10_000, 10);
    expect(taken.map((n) => n.id)).toEqual(first.map((n) => n.id));
    // server-a's late record no longer counts: the claim is server-b's.
    await notifications.markSent(first[0]!, "server-a", now + 10_002);
    expect((await list(form.id)).body.notifications[0]).toMatchObject({ status: "pending", attempts: 0 });
    await notifications.markSent(taken[0]!, "server-b", now + 10_003);
    expect((await list(form.id)).body.notifications[0]).toMatchObject({ status: "sent", attempts: 1 });
  });

  test("a clean stop lets go of its claims, so that another sender takes them at once", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    await post(form.slug, { name: "Ann" });
    const notifications = fx.t.services.notifications;
    const now = Date.now();
    expect(await notifications.claimDue("server-a", now, 60_000, 10)).toHaveLength(1);
    await notifications.release("server-a");
    expect(await notifications.claimDue("server-b", now + 1, 60_000, 10)).toHaveLength(1);
  });
});

describe("POST /api/forms/{id}/notifications/retry", () => {
  test("puts the form's failed notifications back in the queue with a fresh start, and nothing else", async () => {
    const form = await fx.form({ notificationEmail: "owner@example.com" });
    const other = await fx.form({ notificationEmail: "owner@example.com" });
    await post(form.slug, { name: "Ann" });
    await post(other.slug, { name: "Cy" });
    const [ann] = (await list(form.id)).body.notifications.map((n: { id: string }) => n.id);
    const [cy] = (await list(other.id)).body.notifications.map((n: { id: string }) => n.id);
    // Ann's and Cy's fail every attempt, as a sender would find them (one at a time: they are one account's).
    const failed = async () =>
      [...(await list(form.id)).body.notifications, ...(await list(other.id)).body.notifications].filter((n) => n.status === "failed").length;
    for (let round = 1; (await failed()) < 2; round++) {
      // Each claim is looked for later than every backoff and lease before it.
      for (const claimed of await fx.t.services.notifications.claimDue("sender", Date.now() + 10 ** 9 * round, 1, 10)) {
        await fx.t.services.notifications.markAttemptFailed(claimed, "sender", "connect ECONNREFUSED", Date.now(), 60_000);
      }
    }
    // Bob's is still pending.
    await post(form.slug, { name: "Bob" });
    const [bob] = (await list(form.id)).body.notifications.map((n: { id: string }) => n.id);
    expect((await list(form.id)).body.notifications.map((n: { status: string }) => n.status)).toEqual(["pending", "failed"]);

    const retried = await fx.t.request("POST", `/api/forms/${form.id}/notifications/retry`, { key: fx.key });
    expect({ status: retried.status, body: await retried.json() }).toEqual({ status: 200, body: { retried: 1 } });
    const after = (await list(form.id)).body.notifications;
    expect(after.find((n: { id: string }) => n.id === ann)).toMatchObject({ status: "pending", attempts: 0, lastError: "connect ECONNREFUSED" });
    expect(after.find((n: { id: string }) => n.id === bob)).toMatchObject({ status: "pending", attempts: 0, lastError: null });
    // The other form's failed notification stays as it was.
    expect((await list(other.id)).body.notifications).toEqual([expect.objectContaining({ id: cy, status: "failed" })]);
    const again = await fx.t.request("POST", `/api/forms/${form.id}/notifications/retry`, { key: fx.key });
    expect(await again.json()).toEqual({ retried: 0 });
  });
});
