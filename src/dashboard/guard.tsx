/** @jsxImportSource hono/jsx */
import { timingSafeEqual } from "node:crypto";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { can, type Capability } from "../services/people/roles.ts";
import type { Session } from "../services/people/users.ts";
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
  retriedmailoff: "The notification is due now, but mail is off: it is sent once the server runs with --smtp-url.",
  mailoff: "Mail is off: start the server with --smtp-url to send email.",
  testemail: "Test email sent to your address: check your inbox.",
  testemailfailed: "The test email could not be sent: the server log says why.",
  password: "Password changed. Other sessions were signed out.",
  done: "Done.",
  webhook: "Webhook added. Copy its signing secret now: it is not shown again.",
  rotated: "New signing secret made. Copy it now: it is not shown again.",
  webhookdeleted: "Webhook deleted.",
  redelivered: "The delivery is queued to be sent again at once.",
  testevent: "Test event sent: a test submission was stored and is being sent to every webhook of this form.",
  withdrawn: "Invitation withdrawn: its link no longer works.",
  role: "Role saved.",
  removed: "User removed: their sessions have ended.",
  signedout: "You are signed out.",
  required: "This account requires two-step sign-in of every member: set it up to go on.",
  twostepoff: "Two-step sign-in is off.",
  secondexpired: "The sign-in took too long. Enter your email and password again.",
  sessionended: "That session is signed out.",
  othersended: "Every other session is signed out.",
  passkeyadded: "Passkey added: it signs you in from the sign-in page, without a password.",
  passkeyremoved: "Passkey removed: it no longer signs in.",
};

export const noticeOf = (ctx: RequestContext) => NOTICES[ctx.url.searchParams.get("notice") ?? ""];

/** The session of the request's cookie, or null. */
export async function currentSession(ctx: RequestContext): Promise<Session | null> {
  const token = readCookies(ctx.request)[SESSION_COOKIE];
  if (!token || !/^[0-9A-Za-z]{20,100}$/.test(token)) return null;
  const session = await ctx.services.users.session(token);
  if (session) await ctx.services.urls.learn?.();
  return session;
}

/** Where a signed-out visitor is sent: sign-in, then back to the page asked for. */
const toSignIn = (ctx: RequestContext) => redirect(`/dashboard/signin?next=${encodeURIComponent(ctx.url.pathname + ctx.url.search)}`);

/** The 403 page for a signed-in user whose role does not allow what they asked. */
const notAllowed = (session: Session, need: Capability) =>
  refused(`Your role in this account, ${session.user.role}, does not allow this: it needs ${NEEDS[need]}. Ask an admin or owner of the account.`, session);

const NEEDS: Record<Capability, string> = { read: "a signed-in user", edit: "an editor, admin or owner", admin: "an admin or owner", owner: "an owner" };

/** Where a member the account requires two-step sign-in of sets it up; every other page sends them there. */
export const TWO_STEP_PAGE = "/dashboard/account/two-step";

/** The redirect to the two-step set-up, for a session that must do it first, else null. */
const setUpFirst = (ctx: RequestContext, session: Session) =>
  session.mustSetUpTwoStep && !ctx.url.pathname.startsWith(TWO_STEP_PAGE) ? redirect(`${TWO_STEP_PAGE}?notice=required`) : null;

/** A page for signed-in users whose role allows `need` (any role reads); anyone else is sent to sign in or refused. */
export function signedIn(handler: PageHandler, need: Capability = "read"): Handler {
  return async (ctx) => {
    const session = await currentSession(ctx);
    if (!session) return toSignIn(ctx);
    const first = setUpFirst(ctx, session);
    if (first) return first;
    if (!can(session.user.role, need)) return notAllowed(session, need);
    return handler(ctx, session);
  };
}

/** A token as this server makes them (CSRF, pre-session): 32 base62 characters. */
const TOKEN = /^[0-9A-Za-z]{32}$/;

/**
 * Compares the token a browser sent with the one expected: a malformed one (not a token this server makes) is
 * told apart, and a well-formed one is compared in constant time, on bytes of the same length.
 */
export function checkToken(given: string, expected: string): "malformed" | "differs" | "matches" {
  // No token at all is a request from elsewhere (403); one of the wrong shape is a malformed request (400).
  if (given === "") return "differs";
  if (!TOKEN.test(given)) return "malformed";
  const [a, b] = [Buffer.from(given), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b) ? "matches" : "differs";
}

/** The answer to a request refused before anything changed (403; 400 for a malformed request). */
export const refused = (message: string, session: Session | null = null, status = 403) =>
  page(
    status,
    String(<MessagePage title="Request refused" message={message} session={session} link={{ href: "/dashboard/forms", text: "Back to the dashboard" }} />),
  );

/**
 * A state-changing request: from a dashboard page of this server (Origin), by a signed-in user, carrying
 * the session's CSRF token. Anything else is refused and changes nothing.
 */
export function action(handler: ActionHandler, need: Capability = "edit"): Handler {
  return async (ctx) => {
    const problem = originProblem(ctx);
    if (problem) return refused(problem);
    const session = await currentSession(ctx);
    if (!session) return redirect("/dashboard/signin");
    const form = await readForm(ctx);
    const token = checkToken(form.get("_csrf") ?? "", session.csrfToken);
    if (token === "malformed") return refused("This form's security token is malformed. Reload the page and try again.", session, 400);
    if (token === "differs") {
      return refused("This form has expired (its security token does not match). Reload the page and try again.", session);
    }
    const first = setUpFirst(ctx, session);
    if (first) return first;
    // Checked here, on the server, for every action: a page that hides a button is no guard against a forged post.
    if (!can(session.user.role, need)) return notAllowed(session, need);
    return handler(ctx, session, form);
  };
}

/** The field-by-field errors of an ApiError (a `form` entry when it names no field); rethrows anything else. */
export function fieldErrors(error: unknown, fieldMap: Record<string, string> = {}): Record<string, string> {
  if (!(error instanceof ApiError) || error.status >= 500 || error.code === "not_found" || error.code === "form_not_found") throw error;
  const field = error.field ? (fieldMap[error.field] ?? error.field.split(".")[0]!) : "form";
  return { [field]: error.message };
}
