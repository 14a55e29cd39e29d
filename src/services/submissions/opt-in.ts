// Double opt-in (docs/api.md, "Confirmation email and double opt-in"): a one-time signed link in the confirmation email; opening it confirms the
// submission, and only then do the owner's notification and webhooks go out, exactly once.
import { eq, sql } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { DEFAULT_LANGUAGE } from "../../lib/i18n/index.ts";
import { forms, settings, submissions, type SubmissionRow } from "../../db/schema.ts";
import type { NotificationsService } from "../outbox/notifications.ts";
import { announce, keep, type KeepDeps } from "./keep.ts";
import type { WebhooksService } from "../outbox/webhooks.ts";

const KEY_SETTING = "opt_in_key";

/** What opening a link came to: each has a page of its own. */
export type OptInOutcome = "confirmed" | "already_confirmed" | "expired" | "invalid";

/** Where the held-back notification and webhook events go once a submission is confirmed. */
export interface OptInDeps {
  notifications: NotificationsService;
  webhooks?: WebhooksService;
}

const TOKEN = /^(sub_[0-9a-z]{22})\.([0-9a-z]{1,12})\.([A-Za-z0-9_-]{43})$/;

/** The signing key, made at first use and kept in the database, so that every instance and restart agrees. */
async function loadKey(store: Store): Promise<Uint8Array> {
  const read = async () => (await store.db.select().from(settings).where(eq(settings.key, KEY_SETTING)))[0]?.value;
  let value = await read();
  if (value === undefined) {
    const fresh = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64");
    await store.write(async (tx) => {
      await tx.insert(settings).values({ key: KEY_SETTING, value: fresh }).onConflictDoNothing();
    });
    value = (await read())!;
  }
  return Buffer.from(value, "base64");
}

const mac = (key: Uint8Array, text: string) => new Bun.CryptoHasher("sha256", key).update(text).digest("base64url");

/** The double opt-in links: made when a confirmation is queued, opened by the person who submitted. */
export function optInService(store: Store, urls: { submitUrl: () => string }, deps: OptInDeps) {
  let key: Uint8Array | null = null;
  // A confirmed submission sends no confirmation of its own: the links are not needed to keep it.
  const keeping: KeepDeps = { notifications: deps.notifications, outbox: deps.webhooks };

  return {
    /** Loads the signing key (once): `link` needs it and cannot wait inside a write. */
    async ready(): Promise<void> {
      key ??= await loadKey(store);
    },

    /**
     * The public address that confirms `submissionId` until `expiresAt` (ms); with the email's `language` when it
     * is not English, so that the page it opens speaks it (the language is not signed: it only chooses words).
     */
    link(submissionId: string, expiresAt: number, language?: string): string {
      if (!key) throw new Error("opt-in key not loaded: call ready() first");
      const payload = `${submissionId}.${expiresAt.toString(36)}`;
      const words = language && language !== DEFAULT_LANGUAGE ? `?_language=${encodeURIComponent(language)}` : "";
      return `${urls.submitUrl()}/confirm/${payload}.${mac(key, payload)}${words}`;
    },

    /**
     * Confirms the submission a link names, from client address `ip`: sets confirmedAt and confirmedFrom, and
     * queues the notification and webhook events held back, in one transaction (so at most once).
     */
    async confirm(token: string, ip: string, now: number): Promise<OptInOutcome> {
      await this.ready();
      const parts = TOKEN.exec(token);
      if (!parts) return "invalid";
      const [, submissionId, expires, signature] = parts as unknown as [string, string, string, string];
      const expected = mac(key!, `${submissionId}.${expires}`);
      if (!crypto.timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) return "invalid";
      const outcome = await store.write(async (tx) => {
        const [row] = await tx.select().from(submissions).where(eq(submissions.id, submissionId));
        // Gone: purged when its window closed, or deleted by the owner.
        if (!row) return { result: "expired" as const };
        if (!row.unconfirmed) return { result: row.confirmedAt !== null ? ("already_confirmed" as const) : ("invalid" as const) };
        if (Number.parseInt(expires, 36) < now) return { result: "expired" as const };
        // Once confirmed, what the post asked of its notification is no longer held (unless it is spam, or unpaid, as well).
        const held = row.isSpam || row.unpaid ? row.held : null;
        const after: SubmissionRow = { ...row, unconfirmed: false, confirmedAt: now, confirmedFrom: ip.slice(0, 100), held };
        await tx
          .update(submissions)
          .set({ unconfirmed: false, confirmedAt: now, confirmedFrom: after.confirmedFrom, held })
          .where(sql`${submissions.id} = ${row.id} AND ${submissions.unconfirmed} = 1`);
        const [form] = await tx.select().from(forms).where(eq(forms.id, row.formId));
        // Its counters follow, and the owner's notification and the webhook deliveries held back until now go,
        // with what the post asked of them (its _subject, _replyto and _cc, kept while it waited).
        const queued = form ? await keep(tx, [{ form, before: row, after, at: now }], keeping) : null;
        return { result: "confirmed" as const, queued };
      });
      if ("queued" in outcome && outcome.queued) announce(keeping, outcome.queued);
      return outcome.result;
    },
  };
}
