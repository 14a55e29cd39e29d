import { json } from "../http/respond.ts";
import { FORM, operation } from "./operation.ts";

// Account keys only: a form-level key reaches only its form's submissions (docs/api.md, "Authentication and keys"), and a notification
// shows the form's notificationEmail, which such a key cannot read either.

/** /api/forms/{id}/notifications: the form's notification emails, newest first, what became of each, and a retry of the failed (docs/api.md, "Webhooks"). */
export const notificationOperations = [
  operation({
    method: "GET",
    path: `${FORM}/notifications`,
    operationId: "listNotifications",
    summary: "List notification emails",
    tag: "Notifications",
    scope: "account",
    permission: "read",
    query: ["limit", "offset"],
    ok: { status: 200, description: "The form's notification emails, newest first.", schema: "NotificationPage" },
    handler: async (ctx) => json(200, await ctx.services.notifications.list(ctx.principal, ctx.params.id!, ctx.query)),
  }),
  operation({
    method: "POST",
    path: `${FORM}/notifications/retry`,
    operationId: "retryNotifications",
    summary: "Retry failed notifications",
    tag: "Notifications",
    scope: "account",
    permission: "write",
    query: ["pending"],
    ok: { status: 200, description: "How many were queued again.", schema: "Retried" },
    async handler(ctx) {
      const retried = await ctx.services.notifications.retryFailed(ctx.principal, ctx.params.id!, Date.now(), { pending: ctx.query.pending === "true" });
      return json(200, { retried });
    },
  }),
];
