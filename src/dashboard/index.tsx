/** @jsxImportSource hono/jsx */
import { destinationPageRoutes } from "./destination-routes.tsx";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { Router } from "../http/router.ts";
import css from "./assets/dashboard.css" with { type: "text" };
import script from "./assets/dashboard.js" with { type: "text" };
import { activityPageRoutes } from "./activity-routes.tsx";
import { accountRoutes } from "./account-routes.tsx";
import { authRoutes } from "./auth-routes.tsx";
import { deliveriesPageRoutes } from "./deliveries-routes.tsx";
import { erasePageRoutes } from "./erase-routes.tsx";
import { fieldsPageRoutes } from "./fields-routes.tsx";
import { formsPageRoutes } from "./forms-routes.tsx";
import { inboxPageRoutes } from "./inbox-routes.tsx";
import { submissionPageRoutes } from "./submission-routes.tsx";
import { currentSession } from "./guard.tsx";
import { page, SECURITY_HEADERS } from "./http.ts";
import { keyPageRoutes } from "./key-routes.tsx";
import { passkeyRoutes } from "./passkey-routes.tsx";
import { pagePageRoutes } from "./page-routes.tsx";
import { settingsPageRoutes } from "./settings-routes.tsx";
import { ssoRoutes } from "./sso-routes.tsx";
import { teamPageRoutes } from "./team-routes.tsx";
import { MessagePage } from "./pages/auth.tsx";

/** The stylesheet and the script, embedded in the binary like everything else. */
function asset(body: string, type: string): Handler {
  const etag = `"${new Bun.CryptoHasher("sha256").update(body).digest("hex").slice(0, 16)}"`;
  return async (ctx) => {
    const headers = { "content-type": type, etag, "cache-control": "no-cache", ...SECURITY_HEADERS };
    if (ctx.request.headers.get("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  };
}

/** The error page of the dashboard: what went wrong in words, never a stack, always with the security headers. */
async function errorPage(ctx: RequestContext, error: unknown): Promise<Response> {
  const known = error instanceof ApiError ? error : null;
  if (!known) ctx.options.log.error(`${ctx.request.method} ${ctx.url.pathname} failed`, error);
  const status = known?.status ?? 500;
  const title = status === 404 ? "Not found" : status === 405 ? "Not allowed" : status >= 500 ? "Something went wrong" : "Not possible";
  const message = known?.message ?? "Something went wrong on our side. Try again; if it goes on, the server log says more.";
  const session = await currentSession(ctx).catch(() => null);
  return page(
    status,
    String(<MessagePage title={title} message={message} session={session} link={{ href: "/dashboard/forms", text: "Back to the dashboard" }} />),
    known?.headers ?? {},
  );
}

/** The owner's web interface under /dashboard: its own router, every answer with the dashboard's security headers. */
export function createDashboard() {
  const router = new Router<Handler>();
  router.on("GET", "/dashboard/assets/dashboard.css", asset(css, "text/css; charset=utf-8"));
  router.on("GET", "/dashboard/assets/dashboard.js", asset(script, "text/javascript; charset=utf-8"));
  authRoutes(router);
  accountRoutes(router);
  passkeyRoutes(router);
  ssoRoutes(router);
  // One file of routes per page. The fields section's save comes before the other sections' `:section` route.
  formsPageRoutes(router);
  inboxPageRoutes(router);
  submissionPageRoutes(router);
  deliveriesPageRoutes(router);
  keyPageRoutes(router);
  teamPageRoutes(router);
  activityPageRoutes(router);
  erasePageRoutes(router);
  fieldsPageRoutes(router);
  pagePageRoutes(router);
  settingsPageRoutes(router);
  destinationPageRoutes(router);
  return {
    async handle(ctx: RequestContext): Promise<Response> {
      try {
        const { handler, params } = router.match(ctx.request.method, ctx.url.pathname);
        return await handler({ ...ctx, params });
      } catch (error) {
        return errorPage(ctx, error);
      }
    },
  };
}
