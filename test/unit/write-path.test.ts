import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { UploadedFile } from "../../src/lib/files.ts";
import { operator } from "../../src/services/principal.ts";
import { fingerprintOf } from "../../src/services/submissions/idempotency.ts";
import type { ReceiveFlags } from "../../src/services/submissions/write.ts";
import { BASE, testApp, type Driver } from "../helpers/app.ts";

// A post is written one way on every engine (services/submissions/writer.ts): the same posts, with
// Idempotency-Keys, twins racing in one write, a form deleted under its posts and a form whose newest
// submission another process stored ahead of this one's clock, leave the same rows on each engine, row for row.

/** Another process's clock, far ahead: the form's newest submission is there, so each createdAt is this plus n. */
const AHEAD = Date.UTC(2100, 0, 1);

const TABLES = {
  forms: sql`SELECT name, fields, submission_count, spam_count, unread_count, starred_count, last_submission_at FROM forms ORDER BY name`,
  submissions: sql`SELECT s.*, f.name AS form FROM submissions s JOIN forms f ON f.id = s.form_id ORDER BY f.name, s.created_at`,
  files: sql`SELECT * FROM files ORDER BY created_at, field`,
  idempotencyKeys: sql`SELECT * FROM idempotency_keys ORDER BY key`,
  days: sql`SELECT * FROM submission_days ORDER BY day`,
  minutes: sql`SELECT * FROM submission_minutes ORDER BY minute`,
  notifications: sql`SELECT * FROM notifications ORDER BY created_at, kind`,
  deliveries: sql`SELECT * FROM webhook_deliveries ORDER BY created_at`,
};

/** A blob as hex, as either engine's client returns it. */
const hex = (value: unknown) => (value instanceof Uint8Array || value instanceof ArrayBuffer ? Buffer.from(value as ArrayBuffer).toString("hex") : value);

/** Every id and slug as a label by its first appearance (they are random): what remains must be equal on every engine. */
function labelled(dump: unknown, slugs: string[]): unknown {
  const labels = new Map<string, string>();
  let text = JSON.stringify(dump, (_key, value) => hex(value));
  slugs.forEach((slug, i) => {
    text = text.replaceAll(slug, `slug#${i + 1}`);
  });
  return JSON.parse(
    text.replace(/\b(frm|sub|fil|ntf|dlv|whk|acc|msg)_[0-9a-z]{16,}\b/g, (id) => {
      if (!labels.has(id)) labels.set(id, `${id.slice(0, 3)}#${labels.size + 1}`);
      return labels.get(id)!;
    }),
  );
}

/** What a post was answered: stored, or the name of its refusal. */
const outcome = (post: Promise<unknown>) =>
  post.then(
    () => "stored",
    (error: Error & { code?: string }) => error.code ?? error.constructor.name,
  );

/** The same sequence of posts on one engine: what each was answered, and every row they left. */
async function run(driver: Driver) {
  const t = await testApp({ driver, webhooks: { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }] } });
  try {
    const account = await t.account();
    const principal = operator(account.id, "live");
    const created = await account.form({ name: "Alpha", notificationEmail: "owner@example.com", fileUploads: true });
    const other = await account.form({ name: "Beta" });
    await t.services.webhooks.create(principal, created.id, { url: "http://127.0.0.1:9/hook" });
    await t.services.store.write((tx) => tx.run(sql`UPDATE forms SET last_submission_at = ${AHEAD}`));
    const alpha = (await t.services.forms.findBySlug(created.slug))!;
    const beta = (await t.services.forms.findBySlug(other.slug))!;
    const first = { email: "ann@example.com", topic: "hello" };
    const keyed = (key: string, fields: Record<string, unknown>): ReceiveFlags => ({
      isSpam: false,
      idempotency: { key, fingerprint: fingerprintOf(fields), location: `${BASE}/thanks`, redirected: false },
    });
    const receive = (form: typeof alpha, data: Record<string, unknown>, flags: ReceiveFlags) => outcome(t.services.submissions.receive(form, data, flags));
    const cv = new UploadedFile("cv.txt", "text/plain", new TextEncoder().encode("hello"));

    // One write: a key's twin in the same write, a new field, spam, a file, another form.
    const together = await Promise.all([
      receive(alpha, first, keyed("k1", first)),
      receive(alpha, first, keyed("k1", first)),
      receive(beta, { name: "Bo" }, { isSpam: false }),
      receive(alpha, { email: "bob@example.com", extra: "new" }, { isSpam: false }),
      receive(alpha, { email: "spam@example.com" }, { isSpam: true, spamReason: "honeypot" }),
      receive(alpha, { email: "cv@example.com", cv }, keyed("k2", { email: "cv@example.com" })),
    ]);
    // The key again from another process (past its own look-up), then a new key.
    const later = [await receive(alpha, { email: "eve@example.com" }, keyed("k1", { email: "eve@example.com" }))];
    later.push(await receive(alpha, { email: "cy@example.com", third: "x" }, keyed("k3", { email: "cy@example.com", third: "x" })));
    // Beta deleted while posts to it were read: they are refused, and the write's other posts stored.
    await t.services.forms.remove(principal, beta.id);
    const afterDelete = await Promise.all([
      receive(beta, { name: "Late" }, { isSpam: false }),
      receive(alpha, { email: "dee@example.com" }, { isSpam: false }),
    ]);
    // A client's retry through the public endpoint: the first post's answer again.
    const retry = await t.app.fetch(
      new Request(`${BASE}/f/${alpha.slug}`, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json", "idempotency-key": "k1" },
        body: JSON.stringify(first),
      }),
      { ip: "127.0.0.1" },
    );
    const answers = { together, later, afterDelete, retry: [retry.status, retry.headers.get("idempotent-replayed")] };
    const rows: Record<string, unknown[]> = {};
    for (const [name, query] of Object.entries(TABLES)) rows[name] = await t.services.store.db.all(query);
    return { answers, rows: labelled(rows, [alpha.slug, beta.slug]) as Record<string, unknown[]> };
  } finally {
    t.close();
  }
}

test("the same posts leave the same rows on bun:sqlite and on libSQL: one write path", async () => {
  const onSqlite = await run("sqlite");
  const onLibsql = await run("libsql");
  expect(onSqlite.answers).toEqual({
    together: ["stored", "IdempotencyKeyTaken", "stored", "stored", "stored", "stored"],
    later: ["IdempotencyKeyTaken", "stored"],
    afterDelete: ["form_not_found", "stored"],
    retry: [200, "true"],
  });
  const stored = onSqlite.rows.submissions as { form: string; created_at: number }[];
  expect(stored.map((row) => [row.form, row.created_at - AHEAD])).toEqual([
    ["Alpha", 1],
    ["Alpha", 2],
    ["Alpha", 3],
    ["Alpha", 4],
    ["Alpha", 5],
    ["Alpha", 6],
  ]);
  expect(onLibsql).toEqual(onSqlite);
});
