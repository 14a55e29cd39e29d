/** @jsxImportSource hono/jsx */
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { OidcChecks } from "../services/people/sso.ts";
import { signInAs } from "./auth-routes.tsx";
import { cookie, localPath, page, readCookies } from "./http.ts";
import { MessagePage } from "./pages/auth.tsx";

/** The cookie that carries the state, nonce and PKCE verifier to the provider's return (HttpOnly, 10 minutes). */
const OIDC_COOKIE = "formsvc_oidc";
const OIDC_MAX_AGE_S = 600;

/** Where the provider sends the browser back: the address to register with it (docs/dashboard.md, "Single sign-on"). */
export const OIDC_CALLBACK = "/dashboard/oidc/callback";

type Carried = OidcChecks & { next: string };

function carried(ctx: RequestContext): Carried | null {
  const raw = readCookies(ctx.request)[OIDC_COOKIE];
  if (!raw) return null;
  try {
    const value = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as Partial<Carried>;
    if (typeof value.state === "string" && typeof value.nonce === "string" && typeof value.verifier === "string" && typeof value.next === "string") {
      return value as Carried;
    }
  } catch {
    // A cookie not of our making: as if there were none.
  }
  return null;
}

const refusedPage = (message: string, headers: Record<string, string> = {}) =>
  page(403, String(<MessagePage title="Single sign-on refused" message={message} />), headers);

/** "Sign in with NAME": off to the OpenID provider, and back (authorization code with PKCE, state and nonce). */
export function ssoRoutes(router: Router<Handler>): void {
  router.on("GET", "/dashboard/oidc/start", async (ctx) => {
    const sso = ctx.options.sso;
    if (!sso) throw new ApiError("not_found", "Single sign-on is not set up on this server (formsvc serve --oidc-issuer).");
    const next = localPath(ctx.url.searchParams.get("next"), "/dashboard/forms");
    let started: Awaited<ReturnType<typeof sso.start>>;
    try {
      started = await sso.start(`${ctx.services.urls.baseUrl()}${OIDC_CALLBACK}`);
    } catch (error) {
      ctx.options.log.error("single sign-on: the provider's discovery document could not be read", error);
      return page(
        502,
        String(<MessagePage title="Single sign-on unavailable" message={`${sso.name} could not be reached. Try again later; the server log says why.`} />),
      );
    }
    const value = Buffer.from(JSON.stringify({ ...started.checks, next })).toString("base64url");
    const headers = new Headers({ location: started.url, "cache-control": "no-store" });
    headers.append("set-cookie", cookie(ctx, OIDC_COOKIE, value, OIDC_MAX_AGE_S));
    return new Response(null, { status: 303, headers });
  });

  router.on("GET", OIDC_CALLBACK, async (ctx) => {
    const sso = ctx.options.sso;
    if (!sso) throw new ApiError("not_found", "Single sign-on is not set up on this server.");
    const checks = carried(ctx);
    // Used once, whatever the outcome: the provider's answer cannot be brought back a second time.
    const clear = { "set-cookie": cookie(ctx, OIDC_COOKIE, "", 0) };
    if (!checks)
      return refusedPage(`This sign-in took too long or was not started here. Go to the sign-in page and press "Sign in with ${sso.name}" again.`, clear);
    try {
      const user = await sso.finish(new URL(`${ctx.services.urls.baseUrl()}${OIDC_CALLBACK}${ctx.url.search}`), checks);
      const answer = await signInAs(ctx, user.id, checks.next);
      answer.headers.append("set-cookie", clear["set-cookie"]);
      return answer;
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return refusedPage(error.message, clear);
      throw error;
    }
  });
}
