import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, Store } from "../db/client.ts";
import { webhookDeliveries, webhooks, type FormRow, type WebhookDeliveryRow, type WebhookRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import { BlockedAddress, checkedAddresses, systemResolver, type Resolver } from "../lib/address.ts";
import { newId } from "../lib/ids.ts";
import { iso } from "../lib/time.ts";
import { isHttpUrl, lazySchema, parseBody } from "../lib/validate.ts";
import { discordMessage, newWebhookSecret, secretPrefix, slackMessage, WEBHOOK_FORMATS, type WebhookFormat } from "../lib/webhook-message.ts";
import type { FormsService } from "./forms.ts";
import { outboxLeases } from "./outbox-leases.ts";
import type { Principal } from "./principal.ts";
import type { Submission } from "./submissions.ts";
import { preparedOn } from "../db/prepared.ts";

/** A webhook endpoint as lists show it: the secret hidden, its start shown. */
export interface Webhook {
  id: string;
  formId: string;
  url: string;
  description: string | null;
  format: WebhookFormat;
  secretPrefix: string;
  createdAt: string;
}

/** A webhook just made or rotated: the only time its secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

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
  /** The secret a rotation replaced, while the overlap lasts: events are signed with both. */
  previousSecret: string | null;
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

export interface WebhookOptions {
  /** --webhooks-allow-private: skip the address checks (tests, or an intranet receiver on purpose). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** How long after a rotation events are signed with the old secret too (--webhook-rotation-overlap; 24 h). */
  rotationOverlapMs?: number;
}

/** How long a rotated-out secret still signs events unless --webhook-rotation-overlap says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;

/** The body of POST /api/forms/{id}/webhooks (the OpenAPI document is generated from it too). */
export const createSchema = lazySchema((z) =>
  z.strictObject({
    url: z.string({ error: "url must be the receiver's absolute http(s) address." }),
    description: z.string({ error: "description must be a string." }).trim().max(500, "description must be at most 500 characters.").nullish(),
    format: z.enum(WEBHOOK_FORMATS, { error: `format must be one of ${WEBHOOK_FORMATS.join(", ")}.` }).optional(),
  }),
);

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  formId: row.formId,
  url: row.url,
  description: row.description,
  format: row.format as WebhookFormat,
  secretPrefix: secretPrefix(row.secret),
  createdAt: iso(row.createdAt),
});

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

/** Most endpoints one form may have: each submission is sent to every one of them. */
export const MAX_WEBHOOKS_PER_FORM = 20;

/** How long a refused address takes to be found at creation before the check is left to send time. */
const CREATE_LOOKUP_MS = 3_000;

// Read in every public write: prepared once per connection, not built and compiled for each post.
const endpointsOf = preparedOn((db) =>
  db
    .select()
    .from(webhooks)
    .where(eq(webhooks.formId, sql.placeholder("formId")))
    .prepare(),
);

/** Webhooks: endpoints per form, the outbox written with each submission, and the claims of the senders. */
export function webhooksService(store: Store, formsService: FormsService, urls: { baseUrl: () => string }, options: WebhookOptions) {
  const overlapMs = options.rotationOverlapMs ?? DEFAULT_ROTATION_OVERLAP_MS;
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

  /** Refuses an address that is, or resolves to, a loopback, private, link-local or other special address. */
  async function checkAddress(value: string): Promise<void> {
    if (options.allowPrivate) return;
    const host = new URL(value).hostname;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const slow = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CREATE_LOOKUP_MS)));
      await Promise.race([checkedAddresses(host, options.resolve), slow]);
    } catch (error) {
      if (error instanceof BlockedAddress) {
        throw new ApiError("invalid_parameter", `url must be a public address: ${error.message}.`, { field: "url" });
      }
      // A name that does not resolve yet is accepted: it is checked again, resolved, before every send.
    } finally {
      clearTimeout(timer);
    }
  }

  async function findWebhook(db: Db, formId: string, webhookId: string): Promise<WebhookRow> {
    const [row] = await db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.formId, formId), eq(webhooks.id, webhookId)));
    if (!row) throw new ApiError("not_found", `No webhook ${webhookId} on this form.`);
    return row;
  }

  /** The body of one event for one endpoint: the signed JSON event, or a chat message. */
  function payloadFor(format: WebhookFormat, form: Pick<FormRow, "id" | "slug" | "name" | "mode">, submission: Submission, timestamp: string): string {
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

  return {
    options,

    /** Adds an endpoint to a form; the answer carries its secret, shown this once. */
    async create(principal: Principal, formRef: string, body: unknown): Promise<WebhookWithSecret> {
      const input = parseBody(await createSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      input.url = input.url.trim();
      if (input.url.length > 2048 || !isHttpUrl(input.url)) {
        throw new ApiError(
          "invalid_parameter",
          "url must be an absolute http(s) address of at most 2048 characters, such as https://example.com/hooks/formsvc.",
          { field: "url" },
        );
      }
      await checkAddress(input.url);
      const [{ n } = { n: 0 }] = await store.db.select({ n: count() }).from(webhooks).where(eq(webhooks.formId, form.id));
      if (n >= MAX_WEBHOOKS_PER_FORM) {
        throw new ApiError("invalid_body", `A form may have at most ${MAX_WEBHOOKS_PER_FORM} webhooks; remove one first.`);
      }
      const row: WebhookRow = {
        id: newId("webhook"),
        formId: form.id,
        url: input.url,
        description: input.description || null,
        format: input.format ?? "standard",
        secret: newWebhookSecret(),
        previousSecret: null,
        secretRotatedAt: null,
        createdAt: Date.now(),
      };
      await store.write((tx) => tx.insert(webhooks).values(row));
      return { ...toWebhook(row), secret: row.secret };
    },

    /** A form's endpoints, oldest first, secrets hidden. */
    async list(principal: Principal, formRef: string): Promise<Webhook[]> {
      const form = await formsService.findRow(principal, formRef);
      const rows = await store.db.select().from(webhooks).where(eq(webhooks.formId, form.id)).orderBy(asc(webhooks.createdAt), asc(webhooks.id));
      return rows.map(toWebhook);
    },

    /** Removes an endpoint and its delivery log; what was not sent yet is not sent. */
    async remove(principal: Principal, formRef: string, webhookId: string): Promise<void> {
      const form = await formsService.findRow(principal, formRef);
      await store.write(async (tx) => {
        await findWebhook(tx, form.id, webhookId);
        await tx.delete(webhooks).where(eq(webhooks.id, webhookId));
      });
    },

    /**
     * A new secret for an endpoint, shown this once: every later attempt is signed with it, and with the old one
     * too for the rotation overlap, so that receivers can be given the new secret meanwhile.
     */
    async rotate(principal: Principal, formRef: string, webhookId: string): Promise<WebhookWithSecret> {
      const form = await formsService.findRow(principal, formRef);
      return store.write(async (tx) => {
        const old = await findWebhook(tx, form.id, webhookId);
        const [row] = await tx
          .update(webhooks)
          .set({ secret: newWebhookSecret(), previousSecret: old.secret, secretRotatedAt: Date.now() })
          .where(eq(webhooks.id, webhookId))
          .returning();
        return { ...toWebhook(row!), secret: row!.secret };
      });
    },

    /** One page of a form's deliveries (of one endpoint when `webhookId` is given), newest first. */
    async deliveries(principal: Principal, formRef: string, webhookId: string | null, page: { limit: number; offset: number }): Promise<DeliveryPage> {
      const form = await formsService.findRow(principal, formRef);
      if (webhookId !== null) await findWebhook(store.db, form.id, webhookId);
      const rows = await store.db
        .select()
        .from(webhookDeliveries)
        .where(webhookId === null ? eq(webhookDeliveries.formId, form.id) : eq(webhookDeliveries.webhookId, webhookId))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(page.limit + 1)
        .offset(page.offset);
      return {
        deliveries: rows.slice(0, page.limit).map(toDelivery),
        pagination: { limit: page.limit, offset: page.offset, hasMore: rows.length > page.limit },
      };
    },

    /**
     * Sends a delivery again now, with the same webhook-id and body, and a fresh schedule should it fail:
     * it becomes pending and due at once. `webhookId`, when given, must be the delivery's endpoint.
     */
    async retry(principal: Principal, formRef: string, deliveryId: string, webhookId: string | null = null): Promise<WebhookDelivery> {
      const form = await formsService.findRow(principal, formRef);
      const now = Date.now();
      const delivery = await store.write(async (tx) => {
        const [row] = await tx
          .update(webhookDeliveries)
          .set({ status: "pending", attempts: 0, nextAttemptAt: now, claimedBy: null, claimedUntil: null })
          .where(
            and(
              eq(webhookDeliveries.formId, form.id),
              eq(webhookDeliveries.id, deliveryId),
              webhookId === null ? undefined : eq(webhookDeliveries.webhookId, webhookId),
            ),
          )
          .returning();
        if (!row) throw new ApiError("not_found", `No delivery ${deliveryId} on this form.`);
        return toDelivery(row);
      });
      announce();
      return delivery;
    },

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
          payload: payloadFor(endpoint.format as WebhookFormat, form, submission, submission.createdAt),
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
      const body = (format: WebhookFormat) => payloadFor(format, form, submission, submission.createdAt);
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
                previousSecret: endpoint.previousSecret !== null && (endpoint.secretRotatedAt ?? 0) + overlapMs > now ? endpoint.previousSecret : null,
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

export type WebhooksService = ReturnType<typeof webhooksService>;

export const defaultWebhookOptions: WebhookOptions = { allowPrivate: false, resolve: systemResolver };
