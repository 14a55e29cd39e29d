/** @jsxImportSource hono/jsx */
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors, noticeOf, signedIn, TWO_STEP_PAGE } from "./guard.tsx";
import { page, redirect } from "./http.ts";
import { qrCode } from "./page-routes.tsx";
import { SessionsPage, TwoStepPage, type TwoStepView } from "./pages/account-security.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** The signed-in user as the activity log names them. */
const actorOf = (session: Session) => ({ accountId: session.user.accountId, actor: `user:${session.user.email}` });

/** The two-step page's state for the user: the set-up while off (its pending secret, kept across reloads). */
async function twoStepView(ctx: RequestContext, session: Session): Promise<TwoStepView> {
  const status = await ctx.services.twoStep.status(session.user.id);
  if (status.on) return status;
  return { ...status, setup: await ctx.services.twoStep.setup(session.user.id) };
}

/** Account → Two-step sign-in and Account → Sessions: the user's own, so any role may use them. */
export function accountRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    TWO_STEP_PAGE,
    signedIn(async (ctx, session) => render(200, <TwoStepPage session={session} view={await twoStepView(ctx, session)} notice={noticeOf(ctx)} />)),
  );

  router.on(
    "GET",
    `${TWO_STEP_PAGE}/qr.svg`,
    signedIn(async (ctx, session) => {
      const { uri } = await ctx.services.twoStep.setup(session.user.id);
      return new Response(await qrCode(uri), {
        headers: { "content-type": "image/svg+xml", "cache-control": "no-store", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'" },
      });
    }),
  );

  router.on(
    "POST",
    `${TWO_STEP_PAGE}/enable`,
    action(async (ctx, session, form) => {
      try {
        const codes = await ctx.services.twoStep.enable(actorOf(session), session.user.id, form.get("code") ?? "");
        // Shown in this answer only: the codes are stored hashed and cannot be shown again.
        return render(200, <TwoStepPage session={session} view={{ on: true, recoveryLeft: codes.length, codes }} />);
      } catch (error) {
        const errors = fieldErrors(error);
        return render(400, <TwoStepPage session={session} view={await twoStepView(ctx, session)} error={errors.code ?? errors.form} />);
      }
    }, "read"),
  );

  router.on(
    "POST",
    `${TWO_STEP_PAGE}/disable`,
    action(async (ctx, session, form) => {
      try {
        await ctx.services.twoStep.disable(actorOf(session), session.user.id, form.get("code") ?? "");
      } catch (error) {
        const errors = fieldErrors(error);
        return render(400, <TwoStepPage session={session} view={await twoStepView(ctx, session)} error={errors.code ?? errors.form} />);
      }
      return redirect(`${TWO_STEP_PAGE}?notice=twostepoff`);
    }, "read"),
  );

  router.on(
    "GET",
    "/dashboard/account/sessions",
    signedIn(async (ctx, session) =>
      render(200, <SessionsPage session={session} sessions={await ctx.services.sessions.list(session.user.id, session.id)} notice={noticeOf(ctx)} />),
    ),
  );

  router.on(
    "POST",
    "/dashboard/account/sessions/others",
    action(async (ctx, session) => {
      await ctx.services.sessions.endOthers(session.user.id, session.id);
      return redirect("/dashboard/account/sessions?notice=othersended");
    }, "read"),
  );

  router.on(
    "POST",
    "/dashboard/account/sessions/:id/end",
    action(async (ctx, session) => {
      await ctx.services.sessions.end(session.user.id, ctx.params.id!);
      return redirect("/dashboard/account/sessions?notice=sessionended");
    }, "read"),
  );
}
