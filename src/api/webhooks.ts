import { answerBaseUrl } from "../services/urls.ts";
import { json, noContent } from "../http/respond.ts";
import { MAX_WEBHOOKS_PER_FORM } from "../domain/types.ts";
import { createSchema, updateSchema } from "../services/outbox/webhooks.ts";
import { FORM, LOCATION, operation } from "./operation.ts";

// Account keys only: a form-level key reaches only its form's submissions (docs/api.md, "Authentication and keys"), and a webhook's
// secret and address are the owner's settings, as the form's notificationEmail is.

const WEBHOOK = `${FORM}/webhooks/{webhookId}`;
const PAGE = ["limit", "offset"] as const;

/** /api/forms/{id}/webhooks: endpoints, their secrets (shown on create and rotate only), the delivery log and redelivery (docs/api.md, "Webhooks"). */
export const webhookOperations = [
  operation({
    method: "POST",
    path: `${FORM}/webhooks`,
    operationId: "createWebhook",
    summary: "Add a webhook endpoint",
    description:
      "The address must be http(s) and must not resolve to a private, loopback or metadata address (unless the server runs with --webhooks-allow-private).",
    tag: "Webhooks",
    scope: "account",
    permission: "write",
    body: {
      name: "WebhookCreate",
      schema: createSchema,
      example: { url: "https://hooks.example.com/formsvc", description: "CRM" },
      notes: {
        url: `An absolute http(s) address of at most 2048 characters, of a public host (a private, loopback or metadata address is 400 invalid_parameter). A form has at most ${MAX_WEBHOOKS_PER_FORM} webhooks.`,
        description: "A note; at most 500 characters.",
        format: "standard (default): the signed Standard Webhooks event; slack or discord: a short message for that service's incoming webhook.",
        when: "Conditions, all of which a submission must meet to be sent here: [{field, op: equals | contains | in | notEmpty, value?}]. Values compare as text, trimmed, ignoring case.",
      },
    },
    ok: { status: 201, description: "The endpoint, with its secret (shown here and on rotate only).", schema: "WebhookWithSecret", headers: LOCATION },
    async handler(ctx) {
      const webhook = await ctx.services.webhooks.create(ctx.principal, ctx.params.id!, ctx.body);
      return json(201, webhook, { Location: `${answerBaseUrl(ctx.services.urls)}/api/forms/${webhook.formId}/webhooks/${webhook.id}` });
    },
  }),
  operation({
    method: "GET",
    path: `${FORM}/webhooks`,
    operationId: "listWebhooks",
    summary: "List webhook endpoints",
    tag: "Webhooks",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The form's endpoints, secrets hidden.", schema: "WebhookList" },
    handler: async (ctx) => json(200, { webhooks: await ctx.services.webhooks.list(ctx.principal, ctx.params.id!) }),
  }),
  operation({
    method: "PATCH",
    path: WEBHOOK,
    operationId: "updateWebhook",
    summary: "Change a webhook's conditions",
    description: "when: the conditions a submission must meet to be sent here (docs/api.md, Conditions); null or [] sends every one.",
    tag: "Webhooks",
    scope: "account",
    permission: "write",
    body: { name: "WebhookUpdate", schema: updateSchema, example: { when: [{ field: "priority", op: "in", value: ["urgent", "high"] }] } },
    ok: { status: 200, description: "The endpoint as changed, its secret hidden.", schema: "Webhook" },
    handler: async (ctx) => json(200, await ctx.services.webhooks.update(ctx.principal, ctx.params.id!, ctx.params.webhookId!, ctx.body)),
  }),
  operation({
    method: "DELETE",
    path: WEBHOOK,
    operationId: "deleteWebhook",
    summary: "Remove a webhook endpoint",
    tag: "Webhooks",
    scope: "account",
    permission: "delete",
    ok: { status: 204, description: "Removed." },
    async handler(ctx) {
      await ctx.services.webhooks.remove(ctx.principal, ctx.params.id!, ctx.params.webhookId!);
      return noContent();
    },
  }),
  operation({
    method: "POST",
    path: `${WEBHOOK}/rotate`,
    operationId: "rotateWebhookSecret",
    summary: "Rotate a webhook's secret",
    tag: "Webhooks",
    scope: "account",
    permission: "write",
    ok: { status: 200, description: "The endpoint with its new secret.", schema: "WebhookWithSecret" },
    handler: async (ctx) => json(200, await ctx.services.webhooks.rotate(ctx.principal, ctx.params.id!, ctx.params.webhookId!)),
  }),
  operation({
    method: "GET",
    path: `${WEBHOOK}/deliveries`,
    operationId: "listWebhookDeliveries",
    summary: "List an endpoint's deliveries",
    tag: "Webhooks",
    scope: "account",
    permission: "read",
    query: PAGE,
    ok: { status: 200, description: "Deliveries, newest first.", schema: "DeliveryPage" },
    handler: async (ctx) => json(200, await ctx.services.webhooks.deliveries(ctx.principal, ctx.params.id!, ctx.params.webhookId!, ctx.query)),
  }),
  operation({
    method: "POST",
    path: `${WEBHOOK}/deliveries/{deliveryId}/retry`,
    operationId: "retryWebhookDelivery",
    summary: "Send a delivery again now",
    tag: "Webhooks",
    scope: "account",
    permission: "write",
    ok: { status: 202, description: "Queued to be sent now, with the same webhook-id.", schema: "WebhookDelivery" },
    handler: async (ctx) => json(202, await ctx.services.webhooks.retry(ctx.principal, ctx.params.id!, ctx.params.deliveryId!, ctx.params.webhookId!)),
  }),
  // The form's deliveries across its endpoints, and a redelivery by delivery id alone (what the CLI takes).
  operation({
    method: "GET",
    path: `${FORM}/deliveries`,
    operationId: "listDeliveries",
    summary: "List the form's deliveries",
    tag: "Webhooks",
    scope: "account",
    permission: "read",
    description: "Webhook deliveries carry webhookId, a destination's carry destinationId.",
    query: ["webhook", "destination", ...PAGE],
    ok: { status: 200, description: "Deliveries to every endpoint and destination of the form, newest first.", schema: "DeliveryPage" },
    async handler(ctx) {
      const { webhook, destination, ...page } = ctx.query;
      return json(200, await ctx.services.webhooks.deliveries(ctx.principal, ctx.params.id!, webhook || null, page, destination || null));
    },
  }),
  operation({
    method: "POST",
    path: `${FORM}/deliveries/{deliveryId}/retry`,
    operationId: "retryDelivery",
    summary: "Send a delivery again now (by delivery id)",
    description: "A webhook's or a destination's.",
    tag: "Webhooks",
    scope: "account",
    permission: "write",
    ok: { status: 202, description: "Queued to be sent now, with the same webhook-id.", schema: "WebhookDelivery" },
    handler: async (ctx) => json(202, await ctx.services.webhooks.retry(ctx.principal, ctx.params.id!, ctx.params.deliveryId!)),
  }),
];
