/** @jsxImportSource hono/jsx */
import { timingSafeEqual } from "node:crypto";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { Form } from "../domain/types.ts";
import { parseRole } from "../services/people/roles.ts";
import { invitationEmail, type TeamActor } from "../services/people/team.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors, noticeOf, signedIn } from "./guard.tsx";
import { cookie, flashCookie, ownerOf, page, PRESESSION_COOKIE, readCookies, readForm, redirect, sameOrigin, SESSION_COOKIE, takeFlash } from "./http.ts";
import { MessagePage } from "./pages/auth.tsx";
import { InvitationPage, MemberPage, TeamPage, type NewInvitation } from "./pages/team.tsx";
import { randomBase62 } from "../lib/random.ts";
import { SESSION_IDLE_MS } from "../services/people/users.ts";

const render = (status: number, element: unknown, headers: Record<string, string> = {}) => page(status, String(element), headers);

const USED_INVITATION = "This invitation has already been used, was withdrawn, or has expired. Ask the person who invited you for a new one.";

/** The signed-in user as the team service knows them. */
const actorOf = (session: Session): TeamActor => ({
  accountId: session.user.accountId,
  role: session.user.role,
  userId: session.user.id,
  actor: `user:${session.user.email}`,
});

/** Every form of the account, both modes (to limit a member to some). */
async function accountForms(ctx: RequestContext, session: Session): Promise<Form[]> {
  return [...(await ctx.services.forms.list(ownerOf(session, "live"))), ...(await ctx.services.forms.list(ownerOf(session, "test")))];
}

/** The team page's data, with whatever the page adds (an error, a new invitation). */
async function teamPage(ctx: RequestContext, session: Session, extra: Partial<Parameters<typeof TeamPage>[0]> = {}) {
  const accountId = session.user.accountId;
  return (
    <TeamPage
      session={session}
      members={await ctx.services.team.members(accountId)}
      invitations={await ctx.services.team.invitations(accountId)}
      forms={await accountForms(ctx, session)}
      mailOn={Boolean(ctx.options.mail)}
      requireTwoStep={await ctx.services.twoStep.required(accountId)}
      {...extra}
    />
  );
}

/** The pre-session token of an invitation page (the same double submit as sign-in and setup). */
function presession(ctx: RequestContext): { token: string; headers: Record<string, string> } {
  const existing = readCookies(ctx.request)[PRESESSION_COOKIE];
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return { token: existing, headers: {} };
  const token = randomBase62(32);
  return { token, headers: { "set-cookie": cookie(ctx, PRESESSION_COOKIE, token, 3600) } };
}

function presessionMatches(ctx: RequestContext, form: URLSearchParams): boolean {
  const expected = readCookies(ctx.request)[PRESESSION_COOKIE] ?? "";
  const given = form.get("_presession") ?? "";
  return sameOrigin(ctx) && expected.length === 32 && given.length === 32 && timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

/** The team (admin): members, roles, invitations; the invitation link's page. */
export function teamPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/team",
    signedIn(async (ctx, session) => {
      const flash = takeFlash(ctx);
      let created: NewInvitation | null = null;
      if (flash.value?.startsWith("invite:")) created = JSON.parse(flash.value.slice("invite:".length)) as NewInvitation;
      return render(200, await teamPage(ctx, session, { created, notice: created ? undefined : noticeOf(ctx) }), flash.headers);
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/team/two-step",
    action(async (ctx, session, body) => {
      await ctx.services.twoStep.setRequired(actorOf(session), body.get("required") === "true");
      return redirect("/dashboard/team?notice=saved#two-step");
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/team/invite",
    action(async (ctx, session, body) => {
      const input = { email: (body.get("email") ?? "").trim(), role: body.get("role") ?? "", formIds: body.getAll("formIds") };
      try {
        const role = parseRole(input.role);
        const { token, invitation } = await ctx.services.team.invite(actorOf(session), input.email, { role, formIds: input.formIds });
        const url = `${ctx.services.urls.baseUrl()}/dashboard/invite?token=${token}`;
        let mailed = false;
        if (ctx.options.mail) {
          try {
            await ctx.options.mail.send(invitationEmail(invitation, session.user.email, url));
            mailed = true;
          } catch (error) {
            ctx.options.log.error("the invitation email could not be sent", error);
          }
        }
        const created: NewInvitation = { email: invitation.email, url, mailed };
        // POST, redirect, GET: the link is shown by the page the redirect opens, once; a reload does not invite again.
        return redirect("/dashboard/team", [flashCookie(ctx, `invite:${JSON.stringify(created)}`)]);
      } catch (error) {
        return render(400, await teamPage(ctx, session, { input, errors: fieldErrors(error) }));
      }
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/team/invitations/:id/withdraw",
    action(async (ctx, session) => {
      await ctx.services.team.revokeInvitation(actorOf(session), ctx.params.id!);
      return redirect("/dashboard/team?notice=withdrawn");
    }, "admin"),
  );

  router.on(
    "GET",
    "/dashboard/team/:userId",
    signedIn(async (ctx, session) => {
      const member = (await ctx.services.team.members(session.user.accountId)).find((u) => u.id === ctx.params.userId);
      if (!member)
        return render(
          404,
          <MessagePage
            title="Not found"
            message="No such member of this account."
            session={session}
            link={{ href: "/dashboard/team", text: "Back to the team" }}
          />,
        );
      return render(200, <MemberPage session={session} member={member} forms={await accountForms(ctx, session)} />);
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/team/:userId",
    action(async (ctx, session, body) => {
      const userId = ctx.params.userId!;
      try {
        await ctx.services.team.setRole(actorOf(session), userId, { role: parseRole(body.get("role") ?? ""), formIds: body.getAll("formIds") });
        return redirect("/dashboard/team?notice=role");
      } catch (error) {
        const member = (await ctx.services.team.members(session.user.accountId)).find((u) => u.id === userId);
        if (!member) throw error;
        return render(400, <MemberPage session={session} member={member} forms={await accountForms(ctx, session)} errors={fieldErrors(error)} />);
      }
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/team/:userId/remove",
    action(async (ctx, session) => {
      await ctx.services.team.remove(actorOf(session), ctx.params.userId!);
      return redirect("/dashboard/team?notice=removed");
    }, "admin"),
  );

  router.on("GET", "/dashboard/invite", async (ctx) => {
    const token = ctx.url.searchParams.get("token") ?? "";
    const invitation = await ctx.services.team.checkInvitation(token);
    if (!invitation) return render(410, <MessagePage title="Invitation not valid" message={USED_INVITATION} />);
    const pre = presession(ctx);
    return render(200, <InvitationPage presession={pre.token} token={token} invitation={invitation} />, pre.headers);
  });

  router.on("POST", "/dashboard/invite", async (ctx) => {
    const form = await readForm(ctx);
    const token = form.get("token") ?? "";
    const invitation = await ctx.services.team.checkInvitation(token);
    if (!invitation) return render(410, <MessagePage title="Invitation not valid" message={USED_INVITATION} />);
    const pre = presession(ctx);
    const again = (errors: Record<string, string>) =>
      render(400, <InvitationPage presession={pre.token} token={token} invitation={invitation} errors={errors} />, pre.headers);
    if (!presessionMatches(ctx, form)) return again({ form: "This form has expired. Try again." });
    const password = form.get("password") ?? "";
    if (password !== (form.get("confirm") ?? "")) return again({ confirm: "The two passwords differ." });
    try {
      const user = await ctx.services.team.accept(token, password);
      if (!user) return render(410, <MessagePage title="Invitation not valid" message={USED_INVITATION} />);
      const { token: sessionToken } = await ctx.services.users.createSession(user.id);
      return redirect("/dashboard/forms", [cookie(ctx, SESSION_COOKIE, sessionToken, SESSION_IDLE_MS / 1000), cookie(ctx, PRESESSION_COOKIE, "", 0)]);
    } catch (error) {
      return again(fieldErrors(error));
    }
  });
}
