import { timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Session } from "../services/users.ts";
import { page, readCookies, readForm, redirect, originProblem, SESSION_COOKIE } from "./http.ts";
import { MessagePage } from "./pages/auth.tsx";

export type PageHandler = (ctx: RequestContext, session: Session) => Promise<Response>;
export type ActionHandler = (ctx: RequestContext, session: Session, form: URLSearchParams) => Promise<Response>;

/** Messages shown after an action, by the code a redirect carries (`?notice=`): never text from the URL itself. */
export const NOTICES: Record<string, string> = {
  created: "Form created.",
  saved: "Settings saved.",
  tested: "Test submission sent: it is in the inbox.",
  deleted: "Form deleted.",
  revoked: "Key revoked: it no longer works.",
  retried: "The notification is queued to be sent at once.",
  password: "Password changed. Other sessions were signed out.",
  done: "Done.",
  signedout: "You are signed out.",
};

export const noticeOf = (ctx: RequestContext) => NOTICES[ctx.url.searchParams.get("notice") ?? ""];

/** The session of the request's cookie, or null. */
export async function currentSession(ctx: RequestContext): Promise<Session | null> {
  const token = readCookies(ctx.request)[SESSION_COOKIE];
  if (!token || !/^[0-9A-Za-z]{20,100}$/.test(token)) return null;
  return ctx.services.users.session(token);
}

/** Where a signed-out visitor is sent: sign-in, then back to the page asked for. */
const toSignIn = (ctx: RequestContext) => redirect(`/dashboard/signin?next=${encodeURIComponent(ctx.url.pathname + ctx.url.search)}`);

/** A page for signed-in users only; anyone else is sent to sign in. */
export function signedIn(handler: PageHandler): Handler {
  return async (ctx) => {
    const session = await currentSession(ctx);
    if (!session) return toSignIn(ctx);
    return handler(ctx, session);
  };
}

/** The answer to a request refused before anything changed. */
export const refused = (message: string, session: Session | null = null) =>
  page(
    403,
    String(<MessagePage title="Request refused" message={message} session={session} link={{ href: "/dashboard/forms", text: "Back to the dashboard" }} />),
  );

/**
 * A state-changing request: from a dashboard page of this server (Origin), by a signed-in user, carrying
 * the session's CSRF token. Anything else is refused and changes nothing.
 */
export function action(handler: ActionHandler): Handler {
  return async (ctx) => {
    const problem = originProblem(ctx);
    if (problem) return refused(problem);
    const session = await currentSession(ctx);
    if (!session) return redirect("/dashboard/signin");
    const form = await readForm(ctx);
    const token = form.get("_csrf") ?? "";
    if (token.length !== session.csrfToken.length || !timingSafeEqual(Buffer.from(token), Buffer.from(session.csrfToken))) {
      return refused("This form has expired (its security token does not match). Reload the page and try again.", session);
    }
    return handler(ctx, session, form);
  };
}

/** The field-by-field errors of an ApiError (a `form` entry when it names no field); rethrows anything else. */
export function fieldErrors(error: unknown, fieldMap: Record<string, string> = {}): Record<string, string> {
  if (!(error instanceof ApiError) || error.status >= 500 || error.code === "not_found" || error.code === "form_not_found") throw error;
  const field = error.field ? (fieldMap[error.field] ?? error.field.split(".")[0]!) : "form";
  return { [field]: error.message };
}
