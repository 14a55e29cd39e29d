import { expect, test } from "bun:test";
import { eq, inArray } from "drizzle-orm";
import { forms, notifications, submissions, webhookDeliveries } from "../../src/db/schema.ts";
import { operator } from "../../src/services/principal.ts";
import { keep } from "../../src/services/submissions/keep.ts";
import { testApp } from "../helpers/app.ts";

// keep takes a list: several submissions kept in one write, each sending its own notification and deliveries
// once, their counters moved together; on both drivers, in the writer's transaction.
for (const driver of ["sqlite", "libsql"] as const) {
  test(`keep in one transaction keeps a list of submissions, each once (${driver})`, async () => {
    const t = await testApp({ driver, webhooks: { allowPrivate: true, resolve: async () => [{ address: "127.0.0.1", family: 4 }] } });
    try {
      const account = await t.account();
      const principal = operator(account.id, "live");
      const made = await account.form({ notificationEmail: "owner@example.com" });
      await t.services.webhooks.create(principal, made.id, { url: "http://127.0.0.1:9/hook" });
      const held = await Promise.all(["a", "b", "c"].map((n) => t.services.submissions.receive(made.id, { n }, { isSpam: true })));
      const ids = held.map((s) => s.id);
      const deps = { notifications: t.services.notifications, outbox: t.services.webhooks };
      const queued = await t.services.store.write(async (tx) => {
        const [form] = await tx.select().from(forms).where(eq(forms.id, made.id));
        const before = await tx.select().from(submissions).where(inArray(submissions.id, ids));
        const changes = before.map((row) => ({ form: form!, before: row, after: { ...row, isSpam: false, spamReason: null, held: null }, at: Date.now() }));
        for (const change of changes)
          await tx.update(submissions).set({ isSpam: false, spamReason: null, held: null }).where(eq(submissions.id, change.after.id));
        return keep(tx, changes, deps);
      });
      expect(queued).toEqual({ mail: true, deliveries: true });
      const told = await t.services.store.db.select().from(notifications).where(inArray(notifications.submissionId, ids));
      const delivered = await t.services.store.db.select().from(webhookDeliveries).where(inArray(webhookDeliveries.submissionId, ids));
      expect({ told: told.map((n) => n.submissionId).sort(), delivered: delivered.map((d) => d.submissionId).sort() }).toEqual({
        told: [...ids].sort(),
        delivered: [...ids].sort(),
      });
      expect((await t.services.forms.get(principal, made.id)).submissionCount).toBe(3);
    } finally {
      t.close();
    }
  });
}
