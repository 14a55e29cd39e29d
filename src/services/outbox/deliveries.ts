// The webhooks' outbox: the deliveries written with each kept submission (a statement of the write that keeps
// it, services/submissions/keep.ts), and the claims and attempts of the webhook senders (src/workers/webhook-sender.ts).
import { eq, inArray, sql } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { runStep, whenStored, type StatementMaker, type Step } from "../../db/statement.ts";
import { destinations, forms, webhookDeliveries, webhooks, type FormRow, type WebhookDeliveryRow } from "../../db/schema.ts";
import type { Submission } from "../../domain/types.ts";
import { newId } from "../../lib/ids.ts";
import { iso } from "../../lib/time.ts";
import { discordMessage, slackMessage, type WebhookFormat } from "../../lib/webhook-message.ts";
import { outboxLeases } from "./leases.ts";
import { circuitAfter, circuitsOf, openCircuits, webhookShare } from "./shares.ts";
import { type Facts, matches } from "./conditions.ts";
import type { AttemptResult, DestinationTarget } from "./destination-types/kind.ts";

export type DeliveryStatus = "pending" | "succeeded" | "failed";

/** One event to one endpoint or destination, with what its last attempt got. */
export interface WebhookDelivery {
  id: string;
  /** The webhook endpoint it goes to, or null for a destination's. */
  webhookId: string | null;
  /** The destination it goes to, or null for a webhook's. */
  destinationId: string | null;
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
  /** The webhook's or the destination's id: its circuit and its share of the sender. */
  endpointId: string;
  webhookId: string | null;
  /** What a destination's delivery is sent with; null for a webhook's. */
  destination: DestinationTarget | null;
  accountId: string;
  messageId: string;
  payload: string;
  attempts: number;
  url: string;
  secret: string;
  /** The secret a rotation replaced, while the overlap lasts: events are signed with both. */
  previousSecret: string | null;
  format: WebhookFormat;
}

/** Delays before the 2nd … 8th attempt (docs/api.md, "Webhooks"); after the 8th failure the delivery is failed. */
export const WEBHOOK_SCHEDULE_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000] as const;

const at = (ms: number | null) => (ms === null ? null : iso(ms));

export const toDelivery = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  webhookId: row.webhookId,
  destinationId: row.destinationId,
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

/**
 * The endpoints and enabled destinations of a form, with their conditions: what a submission's deliveries are
 * chosen among (see deliveryTargets).
 */
const ENDPOINTS: StatementMaker = (p) =>
  sql`SELECT id, "when" FROM ${webhooks} WHERE form_id = ${p("formId")} UNION ALL SELECT id, "when" FROM ${destinations} WHERE form_id = ${p("formId")} AND enabled = 1`;

/**
 * The ids of the form's endpoints and destinations whose conditions (`when`) a submission (its facts) meets,
 * decided in code (outbox/conditions.ts) by a read of at most MAX_WEBHOOKS_PER_FORM + MAX_DESTINATIONS_PER_FORM
 * rows: a new post's before its write, so that the write's lock is never held for the post's values.
 */
export async function deliveryTargets(db: Db, formId: string, facts: Facts): Promise<string[]> {
  const endpoints = (await runStep(db, { make: ENDPOINTS, values: { formId } })) as { id: string; when: string | null }[];
  return endpoints.filter((endpoint) => matches(endpoint.when, facts)).map((endpoint) => endpoint.id);
}

/**
 * A `submission.created` delivery per chosen endpoint and destination (see deliveryTargets) that is still there
 * (and enabled) at the write: a destination's delivery carries the standard event, which its sender maps.
 */
const QUEUE: StatementMaker = (p) => sql`
  WITH chosen(tid) AS (SELECT value FROM json_each(${p("targets")})),
  targets AS (
    SELECT w.id AS webhook_id, NULL AS destination_id, w.created_at AS at, w.id AS tid,
      CASE w.format WHEN 'slack' THEN ${p("slack")} WHEN 'discord' THEN ${p("discord")} ELSE ${p("standard")} END AS payload
    FROM chosen c JOIN ${webhooks} w ON w.id = c.tid AND w.form_id = ${p("formId")}
    UNION ALL
    SELECT NULL, d.id, d.created_at, d.id, ${p("standard")}
    FROM chosen c JOIN ${destinations} d ON d.id = c.tid AND d.form_id = ${p("formId")} AND d.enabled = 1)
  INSERT INTO ${webhookDeliveries} (id, webhook_id, destination_id, form_id, submission_id, message_id, event_type, payload, status, attempts,
    next_attempt_at, created_at)
  SELECT json_extract(${p("ids")}, '$[' || (row_number() OVER (ORDER BY t.at, t.tid) - 1) || ']'), t.webhook_id, t.destination_id, ${p("formId")},
    ${p("submissionId")}, ${p("messageId")}, 'submission.created', t.payload, 'pending', 0, ${p("createdAt")}, ${p("createdAt")}
  FROM targets t
  WHERE ${whenStored(p)}
  RETURNING id`;

/** The outbox of webhook deliveries: writing them with a submission, and the senders' claims and attempts. */
export function webhookOutbox(store: Store, urls: { baseUrl: () => string }, rotationOverlapMs: number) {
  const listeners = new Set<() => void>();
  const announce = () => {
    for (const listener of listeners) listener();
  };
  const leases = outboxLeases(
    store,
    {
      table: webhookDeliveries,
      id: webhookDeliveries.id,
      status: webhookDeliveries.status,
      nextAttemptAt: webhookDeliveries.nextAttemptAt,
      claimedBy: webhookDeliveries.claimedBy,
      claimedUntil: webhookDeliveries.claimedUntil,
      submissionId: webhookDeliveries.submissionId,
      formId: webhookDeliveries.formId,
    },
    webhookShare,
  );

  return {
    /**
     * The statement that writes a `submission.created` delivery for each of `targets` (see deliveryTargets), for
     * the write that keeps the submission (services/submissions/keep.ts): it writes nothing unless the submission
     * was written before it. Each endpoint's body is chosen by its format in SQL; its rows' ids come from a list
     * made here. It returns the ids it wrote.
     */
    queueDeliveries(form: Pick<FormRow, "id" | "slug" | "name" | "mode">, submission: Submission, createdAt: number, targets: string[]): Step[] {
      const body = (format: WebhookFormat) => payloadFor(urls, format, form, submission, submission.createdAt);
      const values = {
        ids: JSON.stringify(Array.from({ length: targets.length }, () => newId("delivery", createdAt))),
        targets: JSON.stringify(targets),
        formId: form.id,
        submissionId: submission.id,
        messageId: newId("message", createdAt),
        slack: body("slack"),
        discord: body("discord"),
        standard: body("standard"),
        createdAt,
      };
      return [{ make: QUEUE, values }];
    },

    /** The endpoints and destinations a submission (its facts) is to be delivered to (see deliveryTargets). */
    targets: deliveryTargets,

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
          destinationId: webhookDeliveries.destinationId,
          messageId: webhookDeliveries.messageId,
          payload: webhookDeliveries.payload,
          attempts: webhookDeliveries.attempts,
          accountId: forms.accountId,
        })
        .from(webhookDeliveries)
        .innerJoin(forms, eq(forms.id, webhookDeliveries.formId))
        .where(inArray(webhookDeliveries.id, ids));
      const rowById = new Map(rows.map((row) => [row.id, row]));
      const claimed = ids.flatMap((id) => rowById.get(id) ?? []);
      if (claimed.length === 0) return [];
      const webhookIds = [...new Set(claimed.flatMap((c) => c.webhookId ?? []))];
      const destinationIds = [...new Set(claimed.flatMap((c) => c.destinationId ?? []))];
      const endpoints = webhookIds.length ? await store.db.select().from(webhooks).where(inArray(webhooks.id, webhookIds)) : [];
      const targets = destinationIds.length ? await store.db.select().from(destinations).where(inArray(destinations.id, destinationIds)) : [];
      const byId = new Map(endpoints.map((e) => [e.id, e]));
      const destinationById = new Map(targets.map((d) => [d.id, d]));
      return claimed.flatMap((c): OutgoingDelivery[] => {
        const common = { id: c.id, accountId: c.accountId, messageId: c.messageId, payload: c.payload, attempts: c.attempts };
        if (c.destinationId !== null) {
          const target = destinationById.get(c.destinationId);
          if (!target) return [];
          const destination = { id: target.id, type: target.type, config: JSON.parse(target.config), fields: target.fields ? JSON.parse(target.fields) : null };
          return [{ ...common, endpointId: target.id, webhookId: null, destination, url: "", secret: "", previousSecret: null, format: "standard" }];
        }
        const endpoint = byId.get(c.webhookId!);
        return endpoint
          ? [
              {
                ...common,
                endpointId: endpoint.id,
                webhookId: endpoint.id,
                destination: null,
                url: endpoint.url,
                secret: endpoint.secret,
                previousSecret: endpoint.previousSecret !== null && (endpoint.secretRotatedAt ?? 0) + rotationOverlapMs > now ? endpoint.previousSecret : null,
                format: endpoint.format as WebhookFormat,
              },
            ]
          : [];
      });
    },

    /**
     * Records an attempt by `worker` and lets go of the claim: succeeded, due again after the schedule's next
     * delay, or failed; and on its endpoint's circuit, until when it is now open (null: closed).
     */
    async recordAttempt(
      delivery: OutgoingDelivery,
      worker: string,
      result: AttemptResult,
      now: number,
      retryScale: number,
    ): Promise<{ status: DeliveryStatus; circuitOpenUntil: number | null }> {
      const attempts = delivery.attempts + 1;
      const delay = WEBHOOK_SCHEDULE_MS[attempts - 1];
      const status: DeliveryStatus = result.ok ? "succeeded" : delay === undefined || result.final ? "failed" : "pending";
      const [, circuit] = (await store.batch((db) => [
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
        circuitAfter(db, delivery.destination ? "destination" : "webhook", delivery.endpointId, result.ok, now, retryScale),
      ])) as [unknown, { openUntil: number | null }[]];
      return { status, circuitOpenUntil: circuit[0]?.openUntil ?? null };
    },

    /** Lets go of every claim of `worker` (at a clean stop), so that a restart or another process sends them at once. */
    release: leases.release,

    /** Extends the leases `worker` holds while it sends them. */
    extend: leases.extend,

    /** Lets go of one delivery `worker` holds without an attempt (its endpoint's circuit opened meanwhile). */
    letGo: leases.letGo,

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

    /** The circuits of a form's endpoints (the caller has found the form for its principal). */
    circuits: (formId: string, now: number) => circuitsOf(store.db, formId, now),

    /** How many endpoints have their circuit open, for /metrics. */
    openCircuits: (now: number) => openCircuits(store.db, now),
  };
}
