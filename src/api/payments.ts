import { readBytes } from "../http/body.ts";
import { json } from "../http/respond.ts";
import { operation } from "./operation.ts";

/** Where Stripe sends its events (docs/api.md, "Payments"): the endpoint an owner adds in Stripe's dashboard. */
export const paymentOperations = [
  operation({
    method: "POST",
    path: "/stripe/webhook",
    operationId: "stripeWebhook",
    summary: "Stripe's events",
    description:
      "For Stripe only: checkout.session.completed (paid), checkout.session.async_payment_succeeded, checkout.session.expired, checkout.session.async_payment_failed and charge.refunded, each verified by its Stripe-Signature (v1, HMAC-SHA256 with --stripe-webhook-secret, within 5 minutes) and handled once. A paid session keeps its submission (notification, webhooks and destinations go then); an expired one marks it expired; a refund marks a kept one refunded. Any other event, one already handled and one for a submission formsvc does not know are answered 200 and change nothing. 503 while the server has no webhook secret.",
    tag: "Payments",
    scope: "public",
    ok: {
      status: 200,
      description: "Received: handled now, or before (duplicate).",
      schema: "StripeReceipt",
      define: (z) => z.object({ received: z.literal(true), duplicate: z.boolean().describe("true: this event was handled before; nothing changed.") }),
      example: { received: true, duplicate: false },
    },
    errors: [400, 413],
    handler: async (ctx) => {
      // Read as sent: the signature covers these very bytes.
      const payload = new TextDecoder().decode(await readBytes(ctx.request, ctx.options.maxBody));
      const { duplicate } = await ctx.services.payments.receive(payload, ctx.request.headers.get("stripe-signature"), Date.now());
      return json(200, { received: true, duplicate });
    },
  }),
];
