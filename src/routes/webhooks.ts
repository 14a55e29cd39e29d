import { authorize } from "../http/auth.ts";
import { readJson } from "../http/body.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { json, noContent } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import { parsePaging } from "../lib/validate.ts";

// Not form-scoped: a form-level key reaches only its form's submissions (contract §3), and a webhook's secret
// and address are the owner's settings, as the form's notificationEmail is.
const paging = (ctx: RequestContext) => parsePaging(Object.fromEntries(ctx.url.searchParams));

/** /api/forms/{id}/webhooks: endpoints, their secrets (shown on create and rotate only), the delivery log and redelivery. */
export function webhookRoutes(router: Router<Handler>): void {
  router
    .on("POST", "/api/forms/:id/webhooks", async (ctx) => {
      const principal = await authorize(ctx, "write");
      const body = await readJson(ctx.request, ctx.options.maxBody);
      const webhook = await ctx.services.webhooks.create(principal, ctx.params.id!, body);
      return json(201, webhook, { Location: `${ctx.services.urls.baseUrl()}/api/forms/${webhook.formId}/webhooks/${webhook.id}` });
    })
    .on("GET", "/api/forms/:id/webhooks", async (ctx) => {
      const principal = await authorize(ctx, "read");
      return json(200, { webhooks: await ctx.services.webhooks.list(principal, ctx.params.id!) });
    })
    .on("DELETE", "/api/forms/:id/webhooks/:webhookId", async (ctx) => {
      const principal = await authorize(ctx, "delete");
      await ctx.services.webhooks.remove(principal, ctx.params.id!, ctx.params.webhookId!);
      return noContent();
    })
    .on("POST", "/api/forms/:id/webhooks/:webhookId/rotate", async (ctx) => {
      const principal = await authorize(ctx, "write");
      return json(200, await ctx.services.webhooks.rotate(principal, ctx.params.id!, ctx.params.webhookId!));
    })
    .on("GET", "/api/forms/:id/webhooks/:webhookId/deliveries", async (ctx) => {
      const principal = await authorize(ctx, "read");
      return json(200, await ctx.services.webhooks.deliveries(principal, ctx.params.id!, ctx.params.webhookId!, paging(ctx)));
    })
    .on("POST", "/api/forms/:id/webhooks/:webhookId/deliveries/:deliveryId/retry", async (ctx) => {
      const principal = await authorize(ctx, "write");
      return json(202, await ctx.services.webhooks.retry(principal, ctx.params.id!, ctx.params.deliveryId!, ctx.params.webhookId!));
    })
    // The form's deliveries across its endpoints, and a redelivery by delivery id alone (what the CLI takes).
    .on("GET", "/api/forms/:id/deliveries", async (ctx) => {
      const principal = await authorize(ctx, "read");
      return json(200, await ctx.services.webhooks.deliveries(principal, ctx.params.id!, ctx.url.searchParams.get("webhook") || null, paging(ctx)));
    })
    .on("POST", "/api/forms/:id/deliveries/:deliveryId/retry", async (ctx) => {
      const principal = await authorize(ctx, "write");
      return json(202, await ctx.services.webhooks.retry(principal, ctx.params.id!, ctx.params.deliveryId!));
    });
}
