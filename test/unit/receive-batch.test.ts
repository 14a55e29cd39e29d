import { expect, test } from "bun:test";
import { Sqlite3Client, Sqlite3Transaction } from "@libsql/client/sqlite3";
import { sql } from "drizzle-orm";
import { join } from "node:path";
import { openStore } from "../../src/db/client.ts";
import { UploadedFile } from "../../src/lib/files.ts";
import { createServices } from "../../src/services/index.ts";
import { operator } from "../../src/services/principal.ts";
import { testApp } from "../helpers/app.ts";

// The public write on libSQL is one batch that writes only while its createdAt is later than the form's newest:
// when another process stored one at that time or later, nothing of it is written and it is tried again past it.
for (const driver of ["sqlite", "libsql"] as const) {
  test(`a submission is stored after one another process stored later (${driver}): once, with its counters and fields`, async () => {
    const t = await testApp({ driver });
    try {
      const account = await t.account();
      const form = await account.form({ notificationEmail: "owner@example.com" });
      const ahead = Date.now() + 60_000;
      // What another process (with a clock a minute ahead) left: the form's newest submission is in the future.
      await t.services.store.write((tx) => tx.run(sql`UPDATE forms SET last_submission_at = ${ahead} WHERE id = ${form.id}`));
      const stored = await t.services.submissions.receive(form.id, { email: "a@example.com", topic: "x" }, { isSpam: false });
      expect(Date.parse(stored.createdAt)).toBe(ahead + 1);
      const again = await t.services.submissions.receive(form.id, { email: "b@example.com", extra: "y" }, { isSpam: false });
      expect(Date.parse(again.createdAt)).toBe(ahead + 2);

      const principal = operator(account.id, "live");
      const page = await t.services.submissions.list(principal, form.id, {
        limit: 10,
        offset: 0,
        since: null,
        filter: "all",
        order: "asc",
        after: null,
      });
      expect({ ids: page.submissions.map((s) => s.id), fields: page.fields, total: page.pagination.total }).toEqual({
        ids: [stored.id, again.id],
        fields: ["email", "topic", "extra"],
        total: 2,
      });
      expect((await t.services.forms.get(principal, form.id)).submissionCount).toBe(2);
      const queued = await t.services.notifications.list(principal, form.id, { limit: 10, offset: 0 });
      expect(queued.notifications.map((n) => n.submissionId).sort()).toEqual([stored.id, again.id].sort());
    } finally {
      t.close();
    }
  });
}

test("many posts at once, all behind another process's newest submission, are all stored, each once, in order (libsql)", async () => {
  const t = await testApp({ driver: "libsql" });
  try {
    const account = await t.account();
    const created = await account.form();
    // The route's look-up of the form, made before another process stored a submission a minute ahead.
    const form = (await t.services.forms.findBySlug(created.slug))!;
    const ahead = Date.now() + 60_000;
    await t.services.store.write((tx) => tx.run(sql`UPDATE forms SET last_submission_at = ${ahead} WHERE id = ${form.id}`));
    const stored = await Promise.all(Array.from({ length: 80 }, (_, i) => t.services.submissions.receive(form, { n: String(i) }, { isSpam: false })));
    const times = stored.map((s) => Date.parse(s.createdAt));
    expect(new Set(times).size).toBe(80);
    expect(Math.min(...times)).toBeGreaterThan(ahead);
    expect((await t.services.forms.get(operator(account.id, "live"), form.id)).submissionCount).toBe(80);
  } finally {
    t.close();
  }
});

for (const driver of ["sqlite", "libsql"] as const) {
  test(`two processes' stores posting at once to one form (${driver}): every submission stored once, none refused`, async () => {
    const t = await testApp({ driver });
    const file = join(t.dir, "formsvc.db");
    const other = createServices(await openStore(driver === "libsql" ? `file:${file}` : file), t.services.urls);
    try {
      const account = await t.account();
      const form = (await t.services.forms.findBySlug((await account.form({ notificationEmail: "owner@example.com" })).slug))!;
      const posts = Array.from({ length: 60 }, (_, i) =>
        (i % 2 ? t.services : other).submissions.receive(form, { n: String(i) }, { isSpam: false }).then(
          (s) => s.createdAt,
          (error: Error) => `refused: ${error.message}`,
        ),
      );
      const times = await Promise.all(posts);
      expect(times.filter((time) => time.startsWith("refused"))).toEqual([]);
      expect(new Set(times).size).toBe(60);
      expect((await t.services.forms.get(operator(account.id, "live"), form.id)).submissionCount).toBe(60);
    } finally {
      other.store.close();
      t.close();
    }
  });
}

test("on libSQL a submission with a notification, a webhook and a file is one read of where it goes, then one write request", async () => {
  const t = await testApp({ driver: "libsql", webhooks: { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }] } });
  const counted: string[] = [];
  const patched: [Record<string, unknown>, string, unknown][] = [];
  try {
    const account = await t.account();
    const created = await account.form({ notificationEmail: "owner@example.com", fileUploads: true });
    const principal = operator(account.id, "live");
    await t.services.webhooks.create(principal, created.id, { url: "http://127.0.0.1:9/hook" });
    const form = (await t.services.forms.findBySlug(created.slug))!;
    for (const proto of [Sqlite3Client.prototype, Sqlite3Transaction.prototype] as unknown as Record<string, unknown>[]) {
      for (const method of ["execute", "batch", "transaction", "commit"]) {
        const original = proto[method] as (...args: unknown[]) => unknown;
        patched.push([proto, method, original]);
        proto[method] = function (this: unknown, ...args: unknown[]) {
          counted.push(method);
          return original.apply(this, args);
        };
      }
    }
    const file = new UploadedFile("cv.txt", "text/plain", new TextEncoder().encode("hello"));
    const stored = await t.services.submissions.receive(form, { email: "a@example.com", cv: file }, { isSpam: false });
    // The read of the form's endpoints and their conditions, outside the write; then the whole write in one batch.
    expect(counted).toEqual(["execute", "batch"]);
    for (const [proto, method, original] of patched.splice(0)) proto[method] = original;

    const queued = await t.services.notifications.list(principal, form.id, { limit: 10, offset: 0 });
    const deliveries = await t.services.webhooks.deliveries(principal, form.id, null, { limit: 10, offset: 0 });
    const files = (await t.services.files.storedFiles([stored.id])).get(stored.id) ?? new Set();
    expect({ notifications: queued.notifications.length, deliveries: deliveries.deliveries.length, files: files.size }).toEqual({
      notifications: 1,
      deliveries: 1,
      files: 1,
    });
  } finally {
    for (const [proto, method, original] of patched) proto[method] = original;
    t.close();
  }
});
