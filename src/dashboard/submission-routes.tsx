/** @jsxImportSource hono/jsx */
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { Principal, Submission } from "../domain/types.ts";
import { attachmentHeader, downloadHeaders } from "../lib/files.ts";
import { imageTypeOf } from "../lib/image-type.ts";
import { can } from "../services/people/roles.ts";
import { signedIn } from "./guard.tsx";
import { localPath, ownForm, page } from "./http.ts";
import { type Neighbours, SubmissionPage } from "./pages/inbox.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

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

/** One submission's page, and its files: the download, and the preview of an image. */
export function submissionPageRoutes(router: Router<Handler>): void {
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
      // The same answer as the API's download, with the dashboard's referrer policy.
      return new Response(file.content as Uint8Array<ArrayBuffer>, { headers: { ...downloadHeaders(file), "referrer-policy": "same-origin" } });
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
}
