import { and, asc, count, desc, eq } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { webhookDeliveries, webhooks, type WebhookRow } from "../../db/schema.ts";
import { MAX_WEBHOOKS_PER_FORM, type Principal } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { BlockedAddress, checkedAddresses, systemResolver, type Resolver } from "../../lib/address.ts";
import { newId } from "../../lib/ids.ts";
import { iso } from "../../lib/time.ts";
import { isHttpUrl, lazySchema, parseBody } from "../../lib/validate.ts";
import { newWebhookSecret, secretPrefix, WEBHOOK_FORMATS, type WebhookFormat } from "../../lib/webhook-message.ts";
import type { FormsService } from "../forms.ts";
import { type Condition, shownWhen, storedWhen, whenSchema } from "./conditions.ts";
import { hostOf, recordActivity } from "../people/activity.ts";
import { type DeliveryPage, toDelivery, type WebhookDelivery, webhookOutbox } from "./deliveries.ts";

/** A webhook endpoint as lists show it: the secret hidden, its start shown. */
export interface Webhook {
  id: string;
  formId: string;
  url: string;
  description: string | null;
  format: WebhookFormat;
  /** The conditions a submission must meet to be sent here; empty: every one. */
  when: Condition[];
  secretPrefix: string;
  createdAt: string;
}

/** A webhook just made or rotated: the only time its secret is shown. */
export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookOptions {
  /** --webhooks-allow-private: skip the address checks (tests, or an intranet receiver on purpose). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** How long after a rotation events are signed with the old secret too (--webhook-rotation-overlap; 24 h). */
  rotationOverlapMs?: number;
}

/** How long a rotated-out secret still signs events unless --webhook-rotation-overlap says otherwise. */
export const DEFAULT_ROTATION_OVERLAP_MS = 24 * 3_600_000;

const WEBHOOK_SECRET_RULE = "secret must be the base64 of at least 24 random bytes, after whsec_ or alone (openssl rand -base64 32).";
/** A secret's bytes are the base64 after its whsec_ prefix, as Standard Webhooks libraries read it. */
const secretBytes = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ""), "base64").length;

/** The body of POST /api/forms/{id}/webhooks (the OpenAPI document is generated from it too). */
export const createSchema = lazySchema((z) =>
  z.strictObject({
    url: z.string({ error: "url must be the receiver's absolute http(s) address." }),
    description: z.string({ error: "description must be a string." }).trim().max(500, "description must be at most 500 characters.").nullish(),
    format: z.enum(WEBHOOK_FORMATS, { error: `format must be one of ${WEBHOOK_FORMATS.join(", ")}.` }).optional(),
    when: whenSchema(z).nullish(),
    // Given, so that a form's file (formsvc apply) can keep its endpoints' secrets in the environment; else one is made.
    secret: z
      .string({ error: WEBHOOK_SECRET_RULE })
      .regex(/^(whsec_)?[A-Za-z0-9+/]{32,}={0,2}$/, WEBHOOK_SECRET_RULE)
      .refine((secret) => secretBytes(secret) >= 24, WEBHOOK_SECRET_RULE)
      .meta({ writeOnly: true })
      // Kept with its prefix, as the secrets formsvc makes are, whichever way it was given.
      .transform((secret) => (secret.startsWith("whsec_") ? secret : `whsec_${secret}`))
      .optional(),
  }),
);

/** The body of PATCH /api/forms/{id}/webhooks/{webhookId}: its conditions (an empty list or null: every submission). */
export const updateSchema = lazySchema((z) => z.strictObject({ when: whenSchema(z).nullable() }));

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  formId: row.formId,
  url: row.url,
  description: row.description,
  format: row.format as WebhookFormat,
  when: shownWhen(row.when),
  secretPrefix: secretPrefix(row.secret),
  createdAt: iso(row.createdAt),
});

/** How long a refused address takes to be found at creation before the check is left to send time. */
const CREATE_LOOKUP_MS = 3_000;

/**
 * Refuses an address that is, or resolves to, a loopback, private, link-local or other special address, as
 * `400 invalid_parameter` naming `field` (unless --webhooks-allow-private). It is checked again at every send.
 */
export async function checkPublicAddress(options: WebhookOptions, value: string, field = "url"): Promise<void> {
  if (options.allowPrivate) return;
  const host = new URL(value).hostname;
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const slow = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), CREATE_LOOKUP_MS)));
    await Promise.race([checkedAddresses(host, options.resolve), slow]);
  } catch (error) {
    if (error instanceof BlockedAddress) {
      throw new ApiError(
        "invalid_parameter",
        `${field} must be a public address: ${error.message}. A receiver on this machine or a private network needs the server started with --webhooks-allow-private (or FORMSVC_WEBHOOKS_ALLOW_PRIVATE=true).`,
        { field },
      );
    }
    // A name that does not resolve yet is accepted: it is checked again, resolved, before every send.
  } finally {
    clearTimeout(timer);
  }
}

/** Webhooks: endpoints per form, the outbox written with each submission, and the claims of the senders. */
export function webhooksService(store: Store, formsService: FormsService, urls: { baseUrl: () => string }, options: WebhookOptions) {
  async function findWebhook(db: Db, formId: string, webhookId: string): Promise<WebhookRow> {
    const [row] = await db
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.formId, formId), eq(webhooks.id, webhookId)));
    if (!row) throw new ApiError("not_found", `No webhook ${webhookId} on this form.`);
    return row;
  }

  const outbox = webhookOutbox(store, urls, options.rotationOverlapMs ?? DEFAULT_ROTATION_OVERLAP_MS);
  return {
    options,
    ...outbox,

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
      await checkPublicAddress(options, input.url);
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
        secret: input.secret ?? newWebhookSecret(),
        previousSecret: null,
        secretRotatedAt: null,
        createdAt: Date.now(),
        failureStreak: 0,
        circuitOpenUntil: null,
        when: storedWhen(input.when),
      };
      await store.write(async (tx) => {
        await tx.insert(webhooks).values(row);
        await recordActivity(tx, principal, "webhook.create", row.id, `Added a ${row.format} webhook to ${hostOf(row.url)} on "${form.name}".`);
      });
      return { ...toWebhook(row), secret: row.secret };
    },

    /** Changes an endpoint's conditions. */
    async update(principal: Principal, formRef: string, webhookId: string, body: unknown): Promise<Webhook> {
      const input = parseBody(await updateSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      return store.write(async (tx) => {
        await findWebhook(tx, form.id, webhookId);
        const [row] = await tx
          .update(webhooks)
          .set({ when: storedWhen(input.when) })
          .where(eq(webhooks.id, webhookId))
          .returning();
        const summary = input.when?.length ? `${input.when.length} condition${input.when.length === 1 ? "" : "s"}` : "every submission";
        await recordActivity(tx, principal, "webhook.update", webhookId, `The webhook to ${hostOf(row!.url)} on "${form.name}" now sends ${summary}.`);
        return toWebhook(row!);
      });
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
        const gone = await findWebhook(tx, form.id, webhookId);
        await tx.delete(webhooks).where(eq(webhooks.id, webhookId));
        await recordActivity(tx, principal, "webhook.delete", webhookId, `Removed the webhook to ${hostOf(gone.url)} from "${form.name}".`);
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
        await recordActivity(tx, principal, "webhook.rotate", webhookId, `Rotated the secret of the webhook to ${hostOf(row!.url)} on "${form.name}".`);
        return { ...toWebhook(row!), secret: row!.secret };
      });
    },

    /**
     * One page of a form's deliveries, to its webhooks and its destinations (of one endpoint when `webhookId` is
     * given, of one destination when `destinationId` is), newest first.
     */
    async deliveries(
      principal: Principal,
      formRef: string,
      webhookId: string | null,
      page: { limit: number; offset: number },
      destinationId: string | null = null,
    ): Promise<DeliveryPage> {
      const form = await formsService.findRow(principal, formRef);
      if (webhookId !== null) await findWebhook(store.db, form.id, webhookId);
      const rows = await store.db
        .select()
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.formId, form.id),
            webhookId === null ? undefined : eq(webhookDeliveries.webhookId, webhookId),
            destinationId === null ? undefined : eq(webhookDeliveries.destinationId, destinationId),
          ),
        )
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
      outbox.announce();
      return delivery;
    },
  };
}

export type WebhooksService = ReturnType<typeof webhooksService>;

export const defaultWebhookOptions: WebhookOptions = { allowPrivate: false, resolve: systemResolver };
