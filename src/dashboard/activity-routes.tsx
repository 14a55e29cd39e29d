/** @jsxImportSource hono/jsx */
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { parseActivityQuery } from "../services/people/activity.ts";
import { signedIn } from "./guard.tsx";
import { page } from "./http.ts";
import { ActivityPage } from "./pages/activity.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** The account's activity log (admin), 50 entries a page, newest first. */
export function activityPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/activity",
    signedIn(async (ctx, session) => {
      const after = ctx.url.searchParams.get("after") ?? undefined;
      const query = parseActivityQuery({ limit: "50", after: after && /^act_[0-9a-z]{22}$/.test(after) ? after : undefined });
      const list = await ctx.services.activity.list(session.user.accountId, query);
      return render(200, <ActivityPage session={session} entries={list.activity} next={list.pagination.nextCursor} first={!query.after} />);
    }, "admin"),
  );
}
