/** @jsxImportSource hono/jsx */
import { parseQuery } from "../api/query.ts";
import { ApiError } from "../errors.ts";
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { parseWhen } from "../lib/time.ts";
import { CONTENT_TYPES, exportStream } from "../services/submissions/export.ts";
import type { SubmissionQuery } from "../services/submissions/submissions.ts";
import { action, noticeOf, signedIn } from "./guard.tsx";
import { localPath, ownForm, page, redirect, SECURITY_HEADERS } from "./http.ts";
import { InboxPage, inboxHref, PAGE_SIZE, type InboxQuery } from "./pages/inbox.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** One query parameter read by the API's own parser: its value, or the parser's words for why it is refused. */
async function readParameter<N extends "filter" | "q" | "since">(url: URL, name: N): Promise<{ value?: string; error?: string }> {
  try {
    const values = (await parseQuery([name], { [name]: url.searchParams.get(name)?.trim() || undefined })) as Record<string, string | undefined>;
    return { value: values[name] };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { error: error.message };
  }
}

/**
 * The inbox's view from its URL, read by the API's query parser (the same rules as `GET …/submissions`). A filter
 * or page that is not one falls back to the default (only an edited address has one); a search or `since` that
 * cannot be read is reported, and nothing is listed or exported for it, since every submission is not the view
 * that was asked for.
 */
async function inboxQuery(url: URL): Promise<{ query: InboxQuery; since: number | null; errors: { q?: string; since?: string } }> {
  const filter = await readParameter(url, "filter");
  const q = await readParameter(url, "q");
  const since = await readParameter(url, "since");
  const page = Number(url.searchParams.get("page") ?? "1");
  const query: InboxQuery = {
    filter: (filter.value ?? "all") as InboxQuery["filter"],
    q: (url.searchParams.get("q") ?? "").trim(),
    since: (url.searchParams.get("since") ?? "").trim(),
    page: Number.isSafeInteger(page) && page >= 1 ? page : 1,
  };
  const errors = { ...(q.error ? { q: q.error } : {}), ...(since.error ? { since: since.error } : {}) };
  return { query, since: since.value ? parseWhen(since.value) : null, errors };
}

/** A form's inbox: the list of its current view, its export, and actions on a selection. */
export function inboxPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/forms/:id/submissions",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const { query, since, errors } = await inboxQuery(ctx.url);
      const refused = errors.q !== undefined || errors.since !== undefined;
      const list = refused
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
        refused ? 400 : 200,
        <InboxPage
          session={session}
          form={form}
          query={query}
          submissions={list.submissions}
          fields={list.fields}
          total={list.pagination.total}
          hasMore={list.pagination.hasMore}
          errors={errors}
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
      const { query, since, errors } = await inboxQuery(ctx.url);
      if (errors.q !== undefined || errors.since !== undefined) return redirect(inboxHref(ctx.services.forms.toForm(row), query));
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
}
