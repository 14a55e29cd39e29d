import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { CONTENT_TYPES, exportStream } from "../services/submissions/export.ts";
import { iso, parseWhen } from "../lib/time.ts";
import { FILTERS, type Filter, type SubmissionQuery } from "../services/submissions.ts";
import type { Session } from "../services/users.ts";
import { action, fieldErrors, noticeOf, signedIn } from "./guard.tsx";
import { localPath, ownerOf, ownForm, page, redirect, SECURITY_HEADERS } from "./http.ts";
import { DeliveriesPage, NotificationsSection } from "./pages/deliveries.tsx";
import { FormsPage, type FormSummary, type NewFormInput } from "./pages/forms.tsx";
import { InboxPage, PAGE_SIZE, SubmissionPage, type InboxQuery } from "./pages/inbox.tsx";
import { SettingsPage, settingsInput, type SettingsInput } from "./pages/settings.tsx";
import { confirmationSettings } from "./confirmation-routes.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** Every form of the user's account, live and test, newest first, with the unread count and last submission. */
async function summaries(ctx: RequestContext, session: Session): Promise<FormSummary[]> {
  const rows = [...(await ctx.services.forms.listRows(ownerOf(session, "live"))), ...(await ctx.services.forms.listRows(ownerOf(session, "test")))];
  rows.sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1));
  return rows.map((row) => ({
    form: ctx.services.forms.toForm(row),
    unread: row.unreadCount,
    lastSubmissionAt: row.lastSubmissionAt ? iso(row.lastSubmissionAt) : null,
  }));
}

/** The inbox's view from its URL; a bad value falls back to the default, and a bad `since` is reported. */
function inboxQuery(url: URL): { query: InboxQuery; since: number | null; sinceError?: string } {
  const filter = url.searchParams.get("filter") ?? "all";
  const page = Number(url.searchParams.get("page") ?? "1");
  const sinceText = (url.searchParams.get("since") ?? "").trim();
  const query: InboxQuery = {
    filter: (FILTERS as readonly string[]).includes(filter) ? (filter as Filter) : "all",
    q: (url.searchParams.get("q") ?? "").trim().slice(0, 200),
    since: sinceText,
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
  const since = sinceText ? parseWhen(sinceText) : null;
  const sinceError = sinceText && since === null ? "Give a date (2026-11-01), a date and time, or a span back from now such as 24h or 7d." : undefined;
  return { query, since, sinceError };
}

const ACTIONS: Record<string, Record<string, boolean> | "delete"> = {
  star: { isStarred: true },
  unstar: { isStarred: false },
  read: { isRead: true },
  unread: { isRead: false },
  spam: { isSpam: true },
  notspam: { isSpam: false },
  delete: "delete",
};

/** Forms list and creation, a form's inbox, one submission, actions, export, settings, test, delete, deliveries. */
export function formPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/forms",
    signedIn(async (ctx, session) => render(200, <FormsPage session={session} forms={await summaries(ctx, session)} notice={noticeOf(ctx)} />)),
  );

  router.on(
    "POST",
    "/dashboard/forms",
    action(async (ctx, session, body) => {
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
        return redirect(`/dashboard/forms/${form.id}/settings?notice=created`);
      } catch (error) {
        return render(400, <FormsPage session={session} forms={await summaries(ctx, session)} input={input} errors={fieldErrors(error)} />);
      }
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id",
    signedIn(async (ctx) => redirect(`/dashboard/forms/${encodeURIComponent(ctx.params.id!)}/submissions`)),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/submissions",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const { query, since, sinceError } = inboxQuery(ctx.url);
      const list = await ctx.services.submissions.list(principal, row.id, {
        filter: query.filter,
        search: query.q || null,
        since,
        order: "desc",
        limit: PAGE_SIZE,
        offset: (query.page - 1) * PAGE_SIZE,
        after: null,
      });
      const form = ctx.services.forms.toForm(row);
      return render(
        200,
        <InboxPage
          session={session}
          form={form}
          query={query}
          submissions={list.submissions}
          fields={list.fields}
          total={list.pagination.total}
          hasMore={list.pagination.hasMore}
          sinceError={sinceError}
          notice={noticeOf(ctx)}
        />,
      );
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/export",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const format = ctx.url.searchParams.get("format") === "ndjson" ? "ndjson" : "csv";
      const { query, since } = inboxQuery(ctx.url);
      const selection: SubmissionQuery = { filter: query.filter, search: query.q || null, since, order: "desc" };
      const exported = await ctx.services.submissions.export(principal, row.id, selection);
      return new Response(exportStream(exported.chunks(format, { spamReason: false })), {
        headers: {
          "content-type": CONTENT_TYPES[format],
          "content-disposition": `attachment; filename="${row.slug}-submissions.${format}"`,
          "cache-control": "no-store",
          ...SECURITY_HEADERS,
        },
      });
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/submissions/:submissionId",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      let submission = await ctx.services.submissions.get(principal, row.id, ctx.params.submissionId!);
      // Opening a submission is reading it.
      if (!submission.isRead) submission = await ctx.services.submissions.update(principal, row.id, submission.id, { isRead: true });
      const back = localPath(ctx.request.headers.get("referer")?.replace(/^https?:\/\/[^/]+/, "") ?? null, `/dashboard/forms/${row.id}/submissions`);
      const inbox = back.includes("/submissions/") ? `/dashboard/forms/${row.id}/submissions` : back;
      return render(200, <SubmissionPage session={session} form={ctx.services.forms.toForm(row)} submission={submission} back={inbox} />);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/submissions/actions",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const name = body.get("action") ?? "";
      const what = ACTIONS[name];
      if (!what) throw new ApiError("invalid_parameter", `Unknown action "${name}".`, { field: "action" });
      const ids = body.getAll("ids");
      for (const id of ids) {
        if (what === "delete") await ctx.services.submissions.remove(principal, row.id, id);
        else await ctx.services.submissions.update(principal, row.id, id, what);
      }
      const inbox = `/dashboard/forms/${row.id}/submissions`;
      // After deleting it, or marking it unread, the submission's own page is no place to go back to.
      const leaves = name === "delete" || name === "unread";
      const target = localPath(body.get(leaves ? "back" : "return") ?? body.get("return"), inbox);
      return redirect(leaves && target.startsWith(`${inbox}/`) ? inbox : target);
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/settings",
    signedIn(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const form = ctx.services.forms.toForm(row);
      const extra = [confirmationSettings(ctx, session, row)];
      return render(200, <SettingsPage session={session} form={form} input={settingsInput(form)} notice={noticeOf(ctx)} extra={extra} />);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/settings",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const input: SettingsInput = {
        name: body.get("name") ?? "",
        slug: (body.get("slug") ?? "").trim(),
        isActive: body.get("isActive") === "true",
        notificationEmail: (body.get("notificationEmail") ?? "").trim(),
        redirectUrl: (body.get("redirectUrl") ?? "").trim(),
        allowedDomains: body.get("allowedDomains") ?? "",
      };
      try {
        await ctx.services.forms.update(principal, row.id, {
          name: input.name,
          slug: input.slug,
          isActive: input.isActive,
          notificationEmail: input.notificationEmail || null,
          redirectUrl: input.redirectUrl || null,
          allowedDomains: input.allowedDomains.split(/[\s,]+/).filter(Boolean),
        });
        return redirect(`/dashboard/forms/${row.id}/settings?notice=saved`);
      } catch (error) {
        return render(400, <SettingsPage session={session} form={ctx.services.forms.toForm(row)} input={input} errors={fieldErrors(error)} />);
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/test",
    action(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.submissions.receive(
        row.id,
        { email: session.user.email, message: "A test submission sent from the dashboard." },
        { isSpam: false, notification: { subject: `Test submission to ${row.name}` } },
      );
      return redirect(`/dashboard/forms/${row.id}/submissions?notice=tested`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/delete",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      if ((body.get("confirm") ?? "").trim() !== row.name) {
        const form = ctx.services.forms.toForm(row);
        return render(
          400,
          <SettingsPage
            session={session}
            form={form}
            input={settingsInput(form)}
            errors={{ confirm: "Type the form's name exactly as shown to delete it." }}
          />,
        );
      }
      await ctx.services.forms.remove(principal, row.id);
      return redirect("/dashboard/forms?notice=deleted");
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/deliveries",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const pageNumber = Math.max(1, Number.parseInt(ctx.url.searchParams.get("page") ?? "1", 10) || 1);
      const list = await ctx.services.notifications.list(principal, row.id, { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE });
      const form = ctx.services.forms.toForm(row);
      const sections = [NotificationsSection({ session, form, notifications: list.notifications, page: pageNumber, hasMore: list.pagination.hasMore })];
      return render(200, <DeliveriesPage session={session} form={form} sections={sections} notice={noticeOf(ctx)} />);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/emails/:notificationId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.notifications.retryOne(principal, row.id, ctx.params.notificationId!, Date.now());
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=retried`);
    }),
  );
}
