// The webhooks' outbox: the deliveries written with each submission (in its transaction, or as a statement
// of its batch), and the claims and attempts of the webhook senders (src/workers/webhook-sender.ts).
import { eq, inArray, sql } from "drizzle-orm";
import type { Db, Store } from "../db/client.ts";
import { preparedOn } from "../db/prepared.ts";
import { webhookDeliveries, webhooks, type FormRow, type WebhookDeliveryRow } from "../db/schema.ts";
import { MAX_WEBHOOKS_PER_FORM, type Submission } from "../domain/types.ts";
import { newId } from "../lib/ids.ts";
import { iso } from "../lib/time.ts";
import { discordMessage, slackMessage, type WebhookFormat } from "../lib/webhook-message.ts";
import { outboxLeases } from "./outbox-leases.ts";

export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** One event to one endpoint, with what its last attempt got. */
export interface WebhookDelivery {
  id: string;
  webhookId: string;
  submissionId: string;
  /** The webhook-id header: the same on every attempt. */
  messageId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  durationMs: number | null;
  responseSnippet: string | null;
  error: string | null;
  createdAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  deliveredAt: string | null;
}

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  pagination: { limit: number; offset: number; hasMore: boolean };
}

/** A claimed delivery with what sending it needs. */
export interface OutgoingDelivery {
  id: string;
  messageId: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  format: WebhookFormat;
}

/** The outcome of one attempt. */
export interface AttemptResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  responseSnippet: string | null;
  error: string | null;
}

/** Delays before the 2nd … 8th attempt (contract §9); after the 8th failure the delivery is failed. */
export const WEBHOOK_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

const at = (ms: number | null) => (ms === null ? null : iso(ms));

export const toDelivery = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  webhookId: row.webhookId,
  submissionId: row.submissionId,
  messageId: row.messageId,
  eventType: row.eventType,
  status: row.status as DeliveryStatus,
  attempts: row.attempts,
  responseStatus: row.responseStatus,
  durationMs: row.durationMs,
  responseSnippet: row.responseSnippet,
  error: row.lastError,
  createdAt: iso(row.createdAt),
  lastAttemptAt: at(row.lastAttemptAt),
  nextAttemptAt: at(row.nextAttemptAt),
  deliveredAt: at(row.deliveredAt),
});

// Read in every public write: prepared once per connection, not built and compiled for each post.
const endpointsOf = preparedOn((db) =>
  db
    .select()
    .from(webhooks)
    .where(eq(webhooks.formId, sql.placeholder("formId")))
    .prepare(),
);

/** The body of one event for one endpoint: the signed JSON event, or a chat message. */
function payloadFor(
  urls: { baseUrl: () => string },
  format: WebhookFormat,
  form: Pick<FormRow, "id" | "slug" | "name" | "mode">,
  submission: Submission,
  timestamp: string,
): string {
  if (format === "standard") {
    return JSON.stringify({
      type: "submission.created",
      timestamp,
      data: { form: { id: form.id, slug: form.slug, name: form.name, mode: form.mode }, submission },
    });
  }
  const summary = { formName: form.name, data: submission.data, link: `${urls.baseUrl()}/dashboard/forms/${form.id}/submissions/${submission.id}` };
  return format === "slack" ? slackMessage(summary) : discordMessage(summary);
}

/** The outbox of webhook deliveries: writing them with a submission, and the senders' claims and attempts. */
export function webhookOutbox(store: Store, urls: { baseUrl: () => string }) {
  const listeners = new Set<() => void>();
  const announce = () => {
    for (const listener of listeners) listener();
  };
  const leases = outboxLeases(store, {
    table: webhookDeliveries,
    id: webhookDeliveries.id,
    status: webhookDeliveries.status,
    nextAttemptAt: webhookDeliveries.nextAttemptAt,
    claimedBy: webhookDeliveries.claimedBy,
    claimedUntil: webhookDeliveries.claimedUntil,
    submissionId: webhookDeliveries.submissionId,
  });

  return {
    /**
     * Writes a `submission.created` delivery for each endpoint of the form, in the caller's transaction (the
     * submission's), so that an event exists exactly when its submission does. True when one was written.
     */
    async queue(tx: Db, form: Pick<FormRow, "id" | "slug" | "name" | "mode">, submission: Submission, createdAt: number): Promise<boolean> {
      const endpoints = await endpointsOf(tx).all({ formId: form.id });
      if (endpoints.length === 0) return false;
      const messageId = newId("message", createdAt);
      for (const endpoint of endpoints) {
        await tx.insert(webhookDeliveries).values({
          id: newId("delivery", createdAt),
          webhookId: endpoint.id,
          formId: form.id,
          submissionId: submission.id,
          // One event, one webhook-id: a receiver with several endpoints can tell it got the same event twice.
          messageId,
          eventType: "submission.created",
          payload: payloadFor(urls, endpoint.format as WebhookFormat, form, submission, submission.createdAt),
          status: "pending",
          attempts: 0,
          nextAttemptAt: createdAt,
          createdAt,
        });
      }
      return true;
    },

    /**
     * The statement that writes a `submission.created` delivery for each endpoint of the form, for a batch (no
     * read first): it writes nothing unless the submission `submission.id` was written earlier in the batch.
     * Each endpoint's body is chosen by its format in SQL; its rows' ids come from a list made here. Returns the ids it wrote.
     */
    queueStatement(db: Db, form: Pick<FormRow, "id" | "slug" | "name" | "mode">, submission: Submission, createdAt: number) {
      const ids = JSON.stringify(Array.from({ length: MAX_WEBHOOKS_PER_FORM }, () => newId("delivery", createdAt)));
      const body = (format: WebhookFormat) => payloadFor(urls, format, form, submission, submission.createdAt);
      return db.all<{ id: string }>(sql`
        INSERT INTO ${webhookDeliveries} (id, webhook_id, form_id, submission_id, message_id, event_type, payload, status, attempts, next_attempt_at, created_at)
        SELECT json_extract(${ids}, '$[' || (row_number() OVER (ORDER BY w.created_at, w.id) - 1) || ']'), w.id, ${form.id}, ${submission.id},
          ${newId("message", createdAt)}, 'submission.created',
          CASE w.format WHEN 'slack' THEN ${body("slack")} WHEN 'discord' THEN ${body("discord")} ELSE ${body("standard")} END,
          'pending', 0, ${createdAt}, ${createdAt}
        FROM ${webhooks} w
        WHERE w.form_id = ${form.id} AND EXISTS (SELECT 1 FROM submissions WHERE id = ${submission.id})
        RETURNING id`);
    },

    /** Tells this process's sender that a committed write queued deliveries. */
    announce,

    /** Calls `listener` after each commit that queued a delivery (or a retry); returns the way to stop. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /**
     * Claims up to `limit` due deliveries for `worker` until `now + leaseMs`, in one UPDATE … RETURNING: two
     * server processes on one database never hold the same delivery, and one that dies lets go when its lease ends.
     */
    async claimDue(worker: string, now: number, leaseMs: number, limit: number): Promise<OutgoingDelivery[]> {
      const ids = await leases.claim(worker, now, leaseMs, limit);
      if (ids.length === 0) return [];
      const rows = await store.db
        .select({
          id: webhookDeliveries.id,
          webhookId: webhookDeliveries.webhookId,
          messageId: webhookDeliveries.messageId,
          payload: webhookDeliveries.payload,
          attempts: webhookDeliveries.attempts,
        })
        .from(webhookDeliveries)
        .where(inArray(webhookDeliveries.id, ids));
      const rowById = new Map(rows.map((row) => [row.id, row]));
      const claimed = ids.flatMap((id) => rowById.get(id) ?? []);
      if (claimed.length === 0) return [];
      const endpoints = await store.db
        .select()
        .from(webhooks)
        .where(inArray(webhooks.id, [...new Set(claimed.map((c) => c.webhookId))]));
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      return claimed.flatMap((c) => {
        const endpoint = byId.get(c.webhookId);
        return endpoint
          ? [
              {
                id: c.id,
                messageId: c.messageId,
                payload: c.payload,
                attempts: c.attempts,
                url: endpoint.url,
                secret: endpoint.secret,
                format: endpoint.format as WebhookFormat,
              },
            ]
          : [];
      });
    },

    /** Records an attempt by `worker` and lets go of the claim: succeeded, due again after the schedule's next delay, or failed. */
    async recordAttempt(delivery: OutgoingDelivery, worker: string, result: AttemptResult, now: number, retryScale: number): Promise<DeliveryStatus> {
      const attempts = delivery.attempts + 1;
      const delay = WEBHOOK_SCHEDULE_MS[attempts - 1];
      const status: DeliveryStatus = result.ok ? "succeeded" : delay === undefined ? "failed" : "pending";
      await store.batch((db) => [
        db
          .update(webhookDeliveries)
          .set({
            status,
            attempts,
            nextAttemptAt: status === "pending" ? now + Math.round(delay! * retryScale) : null,
            responseStatus: result.responseStatus,
            durationMs: Math.round(result.durationMs),
            responseSnippet: result.responseSnippet,
            lastError: result.error,
            lastAttemptAt: now,
            deliveredAt: result.ok ? now : null,
            claimedBy: null,
            claimedUntil: null,
          })
          .where(leases.heldBy(delivery.id, worker)),
      ]);
      return status;
    },

    /** Lets go of every claim of `worker` (at a clean stop), so that a restart or another process sends them at once. */
    release: leases.release,

    /** How many deliveries wait in the outbox, by status (pending and failed), for /metrics. */
    async outboxDepth(): Promise<Record<string, number>> {
      const rows = await store.db
        .select({ status: webhookDeliveries.status, n: sql<number>`count(*)` })
        .from(webhookDeliveries)
        .where(sql`${webhookDeliveries.status} IN ('pending', 'failed')`)
        .groupBy(webhookDeliveries.status);
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
    },

    /** When the next pending delivery falls due (its claim's end, if claimed), or null when none is pending. */
    nextDueAt: leases.nextDueAt,
  };
}
