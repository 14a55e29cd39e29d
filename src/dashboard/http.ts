import { ApiError } from "../errors.ts";
import { readBytes } from "../http/body.ts";
import type { RequestContext } from "../http/context.ts";
import { type Mode, type Permission, PERMISSIONS, type Principal } from "../domain/types.ts";
import { operator } from "../services/principal.ts";
import { can } from "../services/people/roles.ts";
import type { Session } from "../services/people/users.ts";
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
 * Why a state-changing request does not come from a dashboard page, or null when it does: its Origin (else
 * its Referer) must be this server, as the request reached it or as its public base URL names it. A request
 * with neither is refused. The reason names the addresses, so that a server that does not know its public
 * address (behind a proxy, without --base-url) says how to tell it.
 */
export function originProblem(ctx: RequestContext): string | null {
  const claimed = ctx.request.headers.get("origin") ?? ctx.request.headers.get("referer");
  if (!claimed || claimed === "null" || !URL.canParse(claimed)) {
    return "This request did not come from a page of this dashboard (it carried no Origin or Referer header), so nothing was changed.";
  }
  const origin = new URL(claimed).origin;
  const base = new URL(ctx.services.urls.baseUrl()).origin;
  if (origin === ctx.url.origin || origin === base) return null;
  return (
    `This page was sent from ${origin}, but this server takes its address to be ${base}, so nothing was changed. ` +
    `If ${origin} is this server's public address, start formsvc with --base-url ${origin} ` +
    "(or, behind a reverse proxy, with --trust-proxy and the proxy setting X-Forwarded-Proto and X-Forwarded-Host)."
  );
}

/** True when a state-changing request comes from a dashboard page of this server (see originProblem). */
export const sameOrigin = (ctx: RequestContext): boolean => originProblem(ctx) === null;

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

/**
 * The signed-in user's principal in one mode: the account, with the permissions of the user's role (a viewer
 * reads, an editor also writes and deletes, an admin or owner has admin), named `user:<email>` in the log.
 * The guard checks the role first; the services' own permission checks are a second line.
 */
export function ownerOf(session: Session, mode: Mode): Principal {
  const role = session.user.role;
  const permissions: Permission[] = can(role, "admin") ? [...PERMISSIONS] : can(role, "edit") ? ["read", "write", "delete"] : ["read"];
  return { ...operator(session.user.accountId, mode), permissions: new Set(permissions), actor: `user:${session.user.email}` };
}

/** True when the user may reach this form: an editor or viewer limited to some forms reaches only those. */
export const reaches = (session: Session, formId: string) => session.user.formIds === null || session.user.formIds.includes(formId);

/** The user's form with this id or slug, in whichever mode it is, with the principal to act on it. */
export async function ownForm(ctx: RequestContext, session: Session, ref: string): Promise<{ principal: Principal; row: FormRow }> {
  for (const mode of ["live", "test"] as Mode[]) {
    const principal = ownerOf(session, mode);
    try {
      const row = await ctx.services.forms.findRow(principal, ref);
      // Another form than the user's own is not found, as another account's is: its existence is not told.
      if (!reaches(session, row.id)) break;
      return { principal, row };
    } catch (error) {
      if (!(error instanceof ApiError && error.code === "form_not_found")) throw error;
    }
  }
  throw new ApiError("form_not_found", `No form ${ref}.`);
}

/** The cookie that carries a secret shown once (a new key, an invitation link) across the redirect after its POST. */
const FLASH_COOKIE = "formsvc_flash";

/** A Set-Cookie that hands `value` to the next dashboard page, for a minute at most. */
export const flashCookie = (ctx: RequestContext, value: string) =>
  `${FLASH_COOKIE}=${encodeURIComponent(value)}; Path=/dashboard; HttpOnly; SameSite=Strict; Max-Age=60${isHttps(ctx) ? "; Secure" : ""}`;

/** The value a flash cookie handed on, and the header that clears it: read once, then gone. */
export function takeFlash(ctx: RequestContext): { value: string | null; headers: Record<string, string> } {
  const raw = readCookies(ctx.request)[FLASH_COOKIE];
  if (raw === undefined) return { value: null, headers: {} };
  let value: string | null = null;
  try {
    value = decodeURIComponent(raw) || null;
  } catch {
    // A cookie not of our making is ignored, and cleared all the same.
  }
  return { value, headers: { "set-cookie": cookie(ctx, FLASH_COOKIE, "", 0) } };
}
