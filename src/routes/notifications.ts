import { ApiError } from "../errors.ts";
import { authorize } from "../http/auth.ts";
import type { Handler } from "../http/context.ts";
import { json } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import { parsePaging } from "../lib/validate.ts";

/** /api/forms/{id}/notifications: the form's notification emails, newest first, what became of each, and a retry of the failed. */
export function notificationRoutes(router: Router<Handler>): void {
  router.on("GET", "/api/forms/:id/notifications", async (ctx) => {
    // Not form-scoped: a form-level key reaches only its form's submissions (seed §5), and a notification
    // shows the form's notificationEmail, which such a key cannot read either.
    const principal = await authorize(ctx, "read");
    const page = parsePaging(Object.fromEntries(ctx.url.searchParams));
    return json(200, await ctx.services.notifications.list(principal, ctx.params.id!, page));
  });
  router.on("POST", "/api/forms/:id/notifications/retry", async (ctx) => {
    const principal = await authorize(ctx, "write");
    const pending = ctx.url.searchParams.get("pending") ?? "false";
    if (pending !== "true" && pending !== "false") {
      throw new ApiError("invalid_parameter", `pending must be true or false, not "${pending}".`, { field: "pending" });
    }
    return json(200, { retried: await ctx.services.notifications.retryFailed(principal, ctx.params.id!, Date.now(), { pending: pending === "true" }) });
  });
}
