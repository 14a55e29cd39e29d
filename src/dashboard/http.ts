import { ApiError } from "../errors.ts";
import { readBytes } from "../http/body.ts";
import type { RequestContext } from "../http/context.ts";
import type { Mode, Principal } from "../domain/types.ts";
import { inEitherMode, operator } from "../services/principal.ts";
import type { Session } from "../services/users.ts";
import type { FormRow } from "../db/schema.ts";

/** Sent with every answer under /dashboard: no inline script, no framing, no sniffing, no referrer to other sites. */
export const SECURITY_HEADERS: Record<string, string> = {
  "Content-Security-Policy": "default-src 'self'; frame-ancestors 'none'",
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "same-origin",
};

export const SESSION_COOKIE = "formsvc_session";
/** Before sign-in there is no session: the sign-in and setup forms carry this cookie's value instead (double submit). */
export const PRESESSION_COOKIE = "formsvc_presession";

/** A dashboard page: HTML, the security headers, never cached (it shows private data). */
export function page(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(`<!doctype html>${body}`, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store", ...SECURITY_HEADERS, ...headers },
  });
}

/** A 303 to another dashboard page, with the security headers and any cookies to set. */
export function redirect(location: string, cookies: string[] = []): Response {
  const headers = new Headers({ location, "cache-control": "no-store", ...SECURITY_HEADERS });
  for (const cookie of cookies) headers.append("set-cookie", cookie);
  return new Response(null, { status: 303, headers });
}

/** The cookies of a request, by name. */
export function readCookies(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const at = part.indexOf("=");
    if (at > 0) out[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return out;
}

/** True when the dashboard is reached over https (directly, or as the public base URL says). */
export const isHttps = (ctx: RequestContext) => ctx.url.protocol === "https:" || ctx.services.urls.baseUrl().startsWith("https:");

/** A Set-Cookie for the dashboard: HttpOnly, SameSite=Lax, Path=/dashboard, Secure over https. */
export function cookie(ctx: RequestContext, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/dashboard; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${isHttps(ctx) ? "; Secure" : ""}`;
}

/**
 * True when a state-changing request comes from a dashboard page: its Origin (else its Referer) is this
 * server, as the request reached it or as its public base URL names it. A request with neither is refused.
 */
export function sameOrigin(ctx: RequestContext): boolean {
  const claimed = ctx.request.headers.get("origin") ?? ctx.request.headers.get("referer");
  if (!claimed || claimed === "null" || !URL.canParse(claimed)) return false;
  const origin = new URL(claimed).origin;
  return origin === ctx.url.origin || origin === new URL(ctx.services.urls.baseUrl()).origin;
}

/** The fields of a posted dashboard form (urlencoded); a field sent several times keeps every value. */
export async function readForm(ctx: RequestContext): Promise<URLSearchParams> {
  const type = (ctx.request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  const bytes = await readBytes(ctx.request, ctx.options.maxBody);
  if (type !== "application/x-www-form-urlencoded") throw new ApiError("unsupported_media_type", "Send the dashboard's forms as the browser does.");
  return new URLSearchParams(new TextDecoder().decode(bytes));
}

/** A path inside the dashboard to go back to after an action; anything else is the fallback. */
export function localPath(value: string | null, fallback: string): string {
  return value && /^\/dashboard(\/|$|\?)/.test(value) && !value.startsWith("//") ? value : fallback;
}

/** The operator of the signed-in user's account in one mode: the dashboard acts for the account as its owner. */
export const ownerOf = (session: Session, mode: Mode): Principal => operator(session.user.accountId, mode);

/** The user's form with this id or slug, in whichever mode it is, with the principal to act on it. */
export async function ownForm(ctx: RequestContext, session: Session, ref: string): Promise<{ principal: Principal; row: FormRow }> {
  return inEitherMode(session.user.accountId, "form_not_found", async (principal) => ({ principal, row: await ctx.services.forms.findRow(principal, ref) }));
}
