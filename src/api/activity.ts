import { json } from "../http/respond.ts";
import { PAGE_LIMIT } from "../domain/limits.ts";
import { parseActivityQuery } from "../services/people/activity.ts";
import { operation } from "./operation.ts";

/** /api/activity (admin): the account's activity log, newest first, paged by `after` (docs/api.md, "Activity"). */
export const activityOperations = [
  operation({
    method: "GET",
    path: "/api/activity",
    operationId: "listActivity",
    summary: "List the activity log",
    description:
      "Who (user:<email>, key:<prefix> or cli) did what to which form, key, webhook, user or setting, newest first, for the key's account (both modes).",
    tag: "Keys",
    scope: "account",
    permission: "admin",
    query: ["limit", "after"],
    queryNotes: {
      limit: `Entries per page, ${PAGE_LIMIT.min}–${PAGE_LIMIT.max} (${PAGE_LIMIT.default} by default).`,
      after: "Keyset paging: the `nextCursor` of the previous page (an activity id); entries older than it.",
    },
    ok: { status: 200, description: "A page of the account's activity, newest first.", schema: "ActivityPage" },
    // The cursor is an activity id, not a submission's: read with the activity log's own rule.
    handler: async (ctx) => json(200, await ctx.services.activity.list(ctx.principal.accountId, parseActivityQuery(Object.fromEntries(ctx.url.searchParams)))),
  }),
];
