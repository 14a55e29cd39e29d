/** @jsxImportSource hono/jsx */
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { iso } from "../lib/time.ts";
import { makesForms } from "../services/people/roles.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors, noticeOf, refused, signedIn } from "./guard.tsx";
import { ownerOf, page, reaches, redirect } from "./http.ts";
import { FormsPage, type FormSummary, type NewFormInput } from "./pages/forms.tsx";
import { sectionHref } from "./pages/settings.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** Every form of the user's account, live and test, newest first, with the unread count and last submission. */
async function summaries(ctx: RequestContext, session: Session): Promise<FormSummary[]> {
  const rows = [...(await ctx.services.forms.listRows(ownerOf(session, "live"))), ...(await ctx.services.forms.listRows(ownerOf(session, "test")))];
  rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  return rows
    .filter((row) => reaches(session, row.id))
    .map((row) => ({
      form: ctx.services.forms.toForm(row),
      unread: row.unreadCount,
      lastSubmissionAt: row.lastSubmissionAt ? iso(row.lastSubmissionAt) : null,
    }));
}

/** The forms page: the list, creating a form (which lands on its snippet), and a form's address. */
export function formsPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/forms",
    signedIn(async (ctx, session) =>
      render(200, <FormsPage session={session} forms={await summaries(ctx, session)} notice={noticeOf(ctx)} mailOn={Boolean(ctx.options.mail)} />),
    ),
  );

  router.on(
    "POST",
    "/dashboard/forms",
    action(async (ctx, session, body) => {
      // A user limited to some forms could not reach a form they made: only those who reach every form make one.
      if (!makesForms(session.user.role, session.user.formIds))
        return refused("You are limited to some forms of this account, so you cannot make new ones.", session);
      const input: NewFormInput = {
        name: body.get("name") ?? "",
        slug: (body.get("slug") ?? "").trim(),
        mode: body.get("mode") ?? "live",
        notificationEmail: (body.get("notificationEmail") ?? "").trim(),
      };
      try {
        const form = await ctx.services.forms.create(ownerOf(session, input.mode === "test" ? "test" : "live"), {
          name: input.name,
          ...(input.slug ? { slug: input.slug } : {}),
          ...(input.notificationEmail ? { notificationEmail: input.notificationEmail } : {}),
        });
        return redirect(sectionHref(form.id, "snippet", "created"));
      } catch (error) {
        return render(
          400,
          <FormsPage session={session} forms={await summaries(ctx, session)} input={input} errors={fieldErrors(error)} mailOn={Boolean(ctx.options.mail)} />,
        );
      }
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id",
    signedIn(async (ctx) => redirect(`/dashboard/forms/${encodeURIComponent(ctx.params.id!)}/submissions`)),
  );
}
