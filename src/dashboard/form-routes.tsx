/** @jsxImportSource hono/jsx */
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { CONTENT_TYPES, exportStream } from "../services/submissions/export.ts";
import { iso, parseWhen } from "../lib/time.ts";
import { attachmentHeader } from "../lib/files.ts";
import { imageTypeOf } from "../lib/image-type.ts";
import type { Principal, Submission } from "../domain/types.ts";
import { FILTERS, type Filter, type SubmissionQuery } from "../services/submissions/submissions.ts";
import type { Session } from "../services/people/users.ts";
import { can } from "../services/people/roles.ts";
import { action, fieldErrors, noticeOf, refused, signedIn } from "./guard.tsx";
import { localPath, ownerOf, ownForm, page, reaches, redirect, SECURITY_HEADERS } from "./http.ts";
import { DeliveriesPage, EndpointsSection, NotificationsSection } from "./pages/deliveries.tsx";
import { FormsPage, type FormSummary, type NewFormInput } from "./pages/forms.tsx";
import { InboxPage, inboxHref, type Neighbours, PAGE_SIZE, SubmissionPage, type InboxQuery } from "./pages/inbox.tsx";
import type { SettingsInput } from "./pages/settings.tsx";
import { webhookDeliveriesSection } from "./pages/webhooks.tsx";
import { settingsResponse } from "./settings-routes.tsx";

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

/** The submissions next to this one in the inbox (newest first; spam beside spam): the newer and the older. */
async function neighboursOf(ctx: RequestContext, principal: Principal, formId: string, submission: Submission): Promise<Neighbours> {
  const near = async (order: "asc" | "desc") => {
    const query = {
      filter: submission.isSpam ? ("spam" as const) : ("all" as const),
      search: null,
      since: null,
      order,
      limit: 1,
      offset: 0,
      after: submission.id,
    };
    return (await ctx.services.submissions.list(principal, formId, query)).submissions[0]?.id ?? null;
  };
  return { newer: await near("asc"), older: await near("desc") };
}

/**
 * The inbox's view from its URL. A filter or page that is not one falls back to the default (only an edited
 * address has one); a `since` that cannot be read is reported, and nothing is listed or exported for it, since
 * every submission is not the view that was asked for.
 */
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
  const sinceError =
    sinceText && since === null
      ? `Give a date (2026-11-01), a date and time (2026-11-01T14:30Z, UTC unless it says otherwise), or a span back from now such as 90m, 24h or 7d; "${sinceText.slice(0, 40)}" is none of these.`
      : undefined;
  return { query, since, sinceError };
}

/** Forms list and creation, a form's inbox, one submission, actions, export, settings, test, delete, deliveries. */
export function formPageRoutes(router: Router<Handler>): void {
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
      if (session.user.formIds !== null) return refused("You are limited to some forms of this account, so you cannot make new ones.", session);
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

  router.on(
    "GET",
    "/dashboard/forms/:id/submissions",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const { query, since, sinceError } = inboxQuery(ctx.url);
      const list = sinceError
        ? { submissions: [], fields: [], pagination: { total: 0, hasMore: false } }
        : await ctx.services.submissions.list(principal, row.id, {
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
        sinceError ? 400 : 200,
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
      const { query, since, sinceError } = inboxQuery(ctx.url);
      if (sinceError) return redirect(inboxHref(ctx.services.forms.toForm(row), query));
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
      // Opening a submission is reading it (for those who may change it: a viewer leaves it as it was).
      if (!submission.isRead && can(session.user.role, "edit"))
        submission = await ctx.services.submissions.update(principal, row.id, submission.id, { isRead: true }, { record: false });
      const back = localPath(ctx.request.headers.get("referer")?.replace(/^https?:\/\/[^/]+/, "") ?? null, `/dashboard/forms/${row.id}/submissions`);
      const inbox = back.includes("/submissions/") ? `/dashboard/forms/${row.id}/submissions` : back;
      const neighbours = await neighboursOf(ctx, principal, row.id, submission);
      return render(
        200,
        <SubmissionPage session={session} form={ctx.services.forms.toForm(row)} submission={submission} back={inbox} neighbours={neighbours} />,
      );
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/submissions/:submissionId/files/:fileId",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const file = await ctx.services.files.get(principal, row.id, ctx.params.submissionId!, ctx.params.fileId!);
      // The same answer as the API's download: submitted bytes are a download, never sniffed, sandboxed if opened.
      return new Response(file.content as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": file.type,
          "content-length": String(file.size),
          "content-disposition": attachmentHeader(file.name),
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox",
          "cache-control": "private, no-store",
          "referrer-policy": "same-origin",
        },
      });
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/submissions/:submissionId/files/:fileId/preview",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const file = await ctx.services.files.get(principal, row.id, ctx.params.submissionId!, ctx.params.fileId!);
      // Shown inline only when its bytes are a raster image, as the type they really are; anything else
      // (an SVG, a text that claims to be a PNG) has no preview, only the download.
      const type = imageTypeOf(file.content);
      if (!type) throw new ApiError("not_found", "This file is not an image that can be previewed: download it instead.");
      return new Response(file.content as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": type,
          "content-length": String(file.size),
          "content-disposition": attachmentHeader(file.name).replace(/^attachment/, "inline"),
          "x-content-type-options": "nosniff",
          "content-security-policy": "default-src 'none'; sandbox",
          "cross-origin-resource-policy": "same-origin",
          "cache-control": "private, no-store",
          "referrer-policy": "same-origin",
        },
      });
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/submissions/actions",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const name = body.get("action") ?? "";
      await ctx.services.submissionBulk.apply(principal, row.id, body.getAll("ids"), name);
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
      return settingsResponse(ctx, session, row, { notice: noticeOf(ctx) });
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
        return settingsResponse(ctx, session, row, { status: 400, input, errors: fieldErrors(error) });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/test",
    action(async (ctx, session, body) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const fields = { email: session.user.email, message: "A test submission sent from the dashboard.", _subject: `Test submission to ${row.name}` };
      try {
        // The public endpoint's rules, as the owner's own post (docs/dashboard.md says what it skips).
        await ctx.services.intake.receive(row, { origin: null, ip: ctx.ip, readFields: async () => fields, byOwner: true }, { rateLimit: () => 0 });
      } catch (error) {
        const errors = { test: fieldErrors(error, {}).form ?? (error as Error).message };
        return settingsResponse(ctx, session, row, { status: 400, errors });
      }
      // From the webhooks section, the test is of the webhooks: back there, where their deliveries are linked.
      if (body.get("return") === "webhooks") return redirect(`/dashboard/forms/${row.id}/settings?notice=testevent#webhooks`);
      return redirect(`/dashboard/forms/${row.id}/submissions?notice=tested`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/delete",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      if ((body.get("confirm") ?? "").trim() !== row.name) {
        return settingsResponse(ctx, session, row, { status: 400, errors: { confirm: "Type the form's name exactly as shown to delete it." } });
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
      const webhooks = await ctx.services.webhooks.list(principal, row.id);
      const deliveries = await ctx.services.webhooks.deliveries(principal, row.id, null, { limit: PAGE_SIZE, offset: 0 });
      const sections = [
        NotificationsSection({
          session,
          form,
          notifications: list.notifications,
          page: pageNumber,
          hasMore: list.pagination.hasMore,
          mailServer: ctx.options.mail?.server ?? null,
        }),
        EndpointsSection({ form, circuits: await ctx.services.webhooks.circuits(row.id, Date.now()) }),
        webhookDeliveriesSection({ session, form, deliveries: deliveries.deliveries, webhooks }),
      ];
      return render(200, <DeliveriesPage session={session} form={form} sections={sections} notice={noticeOf(ctx)} />);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/emails/:notificationId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.notifications.retryOne(principal, row.id, ctx.params.notificationId!, Date.now());
      // Without a mail server nothing goes out at once, and the page must not say it does.
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=${ctx.options.mail ? "retried" : "retriedmailoff"}`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/test-email",
    action(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const mail = ctx.options.mail;
      if (!mail) return redirect(`/dashboard/forms/${row.id}/deliveries?notice=mailoff`);
      try {
        await mail.send({
          to: session.user.email,
          subject: "formsvc test email",
          text: `This is a test email from formsvc, sent from the deliveries page of "${row.name}" through ${mail.server}.\n`,
        });
      } catch (error) {
        ctx.options.log.error("the test email could not be sent", error);
        return redirect(`/dashboard/forms/${row.id}/deliveries?notice=testemailfailed`);
      }
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=testemail`);
    }),
  );
}
