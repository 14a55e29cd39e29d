/** @jsxImportSource hono/jsx */
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { RelyingParty } from "../services/people/passkeys.ts";
import type { Session } from "../services/people/users.ts";
import { presession, presessionCheck, signInAs, signInWays } from "./auth-routes.tsx";
import { action, fieldErrors, noticeOf, signedIn } from "./guard.tsx";
import { localPath, originProblem, page, readForm, redirect, SECURITY_HEADERS } from "./http.ts";
import { PasskeysPage } from "./pages/account-security.tsx";
import { SignInPage } from "./pages/auth.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** Passkeys belong to the public address (--base-url): its host is the relying party id, its origin the only one accepted. */
function relyingParty(ctx: RequestContext): RelyingParty {
  const base = new URL(ctx.services.urls.baseUrl());
  return { id: base.hostname, origin: base.origin };
}

/** The options a page's script hands to the browser's WebAuthn prompt, or the API's error shape. */
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", "cache-control": "no-store", ...SECURITY_HEADERS } });

const actorOf = (session: Session) => ({ accountId: session.user.accountId, actor: `user:${session.user.email}` });

async function passkeysPage(ctx: RequestContext, session: Session, status = 200, errors: Record<string, string> = {}) {
  const list = await ctx.services.passkeys.list(session.user.id);
  return render(status, <PasskeysPage session={session} passkeys={list} notice={noticeOf(ctx)} errors={errors} baseUrl={ctx.services.urls.baseUrl()} />);
}

/** Account → Passkeys, and "Sign in with a passkey" on the sign-in page. */
export function passkeyRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/account/passkeys",
    signedIn((ctx, session) => passkeysPage(ctx, session)),
  );

  router.on(
    "POST",
    "/dashboard/account/passkeys/options",
    action(async (ctx, session) => json(200, await ctx.services.passkeys.addOptions(relyingParty(ctx), session.user)), "read"),
  );

  router.on(
    "POST",
    "/dashboard/account/passkeys",
    action(async (ctx, session, form) => {
      try {
        await ctx.services.passkeys.add(relyingParty(ctx), actorOf(session), session.user.id, form.get("name") ?? "", form.get("response") ?? "");
      } catch (error) {
        return passkeysPage(ctx, session, 400, fieldErrors(error));
      }
      return redirect("/dashboard/account/passkeys?notice=passkeyadded");
    }, "read"),
  );

  router.on(
    "POST",
    "/dashboard/account/passkeys/:id/rename",
    action(async (ctx, session, form) => {
      try {
        await ctx.services.passkeys.rename(session.user.id, ctx.params.id!, form.get("name") ?? "");
      } catch (error) {
        return passkeysPage(ctx, session, 400, fieldErrors(error));
      }
      return redirect("/dashboard/account/passkeys?notice=saved");
    }, "read"),
  );

  router.on(
    "POST",
    "/dashboard/account/passkeys/:id/remove",
    action(async (ctx, session) => {
      await ctx.services.passkeys.remove(actorOf(session), session.user.id, ctx.params.id!);
      return redirect("/dashboard/account/passkeys?notice=passkeyremoved");
    }, "read"),
  );

  router.on("POST", "/dashboard/signin/passkey/options", async (ctx) => {
    const form = await readForm(ctx);
    if (presessionCheck(ctx, form) !== "matches") {
      return json(403, { error: { code: "forbidden", message: originProblem(ctx) ?? "This sign-in page has expired. Reload it and try again." } });
    }
    return json(200, await ctx.services.passkeys.signInOptions(relyingParty(ctx)));
  });

  router.on("POST", "/dashboard/signin/passkey", async (ctx) => {
    const form = await readForm(ctx);
    const pre = presession(ctx);
    const again = (status: number, error: string) =>
      page(status, String(<SignInPage presession={pre.token} error={error} next={form.get("next") ?? undefined} {...signInWays(ctx)} />), pre.headers);
    if (presessionCheck(ctx, form) !== "matches") return again(403, originProblem(ctx) ?? "This sign-in form has expired. Try again.");
    try {
      const user = await ctx.services.passkeys.signIn(relyingParty(ctx), form.get("response") ?? "");
      return signInAs(ctx, user.id, localPath(form.get("next"), "/dashboard/forms"));
    } catch (error) {
      if (error instanceof ApiError && error.status < 500) return again(error.status, error.message);
      throw error;
    }
  });
}
