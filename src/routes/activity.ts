import { authorize } from "../http/auth.ts";
import type { Handler } from "../http/context.ts";
import { json } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import { parseActivityQuery } from "../services/activity.ts";

/** GET /api/activity (admin): the account's activity log, newest first, paged by `after` (contract §17). */
export function activityRoutes(router: Router<Handler>): void {
  router.on("GET", "/api/activity", async (ctx) => {
    const principal = await authorize(ctx, "admin");
    const query = parseActivityQuery(Object.fromEntries(ctx.url.searchParams));
    return json(200, await ctx.services.activity.list(principal.accountId, query));
  });
}
