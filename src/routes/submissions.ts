import { ApiError } from "../errors.ts";
import { authorize } from "../http/auth.ts";
import { readJson } from "../http/body.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { json, noContent } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import { EXPORT_FORMATS, type ExportFormat } from "../domain/types.ts";
import { CONTENT_TYPES, exportStream } from "../services/submissions/export.ts";
import { attachmentHeader } from "../lib/files.ts";
import { parseListQuery } from "../services/submissions.ts";

const scoped = { formScoped: true };
const queryOf = (ctx: RequestContext) => Object.fromEntries(ctx.url.searchParams) as Record<string, string>;

/**
 * /api/forms/{id}/submissions: the list, the export, one submission's get, patch and delete, and its files;
 * and /api/submissions/erase, which crosses the account's forms.
 */
export function submissionRoutes(router: Router<Handler>): void {
  router
    .on("GET", "/api/forms/:id/submissions", async (ctx) => {
      const principal = await authorize(ctx, "read", scoped);
      return json(200, await ctx.services.submissions.list(principal, ctx.params.id!, parseListQuery(queryOf(ctx))));
    })
    .on("GET", "/api/forms/:id/submissions/export", async (ctx) => {
      const principal = await authorize(ctx, "read", scoped);
      const { format = "csv", ...rest } = queryOf(ctx);
      if (!(EXPORT_FORMATS as readonly string[]).includes(format)) {
        throw new ApiError("invalid_parameter", `format must be one of ${EXPORT_FORMATS.join(", ")}, not "${format}".`, { field: "format" });
      }
      const query = parseListQuery(rest, { paged: false });
      const exported = await ctx.services.submissions.export(principal, ctx.params.id!, query);
      return new Response(exportStream(exported.chunks(format as ExportFormat)), {
        headers: {
          "content-type": CONTENT_TYPES[format as ExportFormat],
          "content-disposition": `attachment; filename="${exported.form.slug}-submissions.${format}"`,
        },
      });
    })
    .on("GET", "/api/forms/:id/submissions/:submissionId", async (ctx) => {
      const principal = await authorize(ctx, "read", scoped);
      return json(200, await ctx.services.submissions.get(principal, ctx.params.id!, ctx.params.submissionId!));
    })
    .on("PATCH", "/api/forms/:id/submissions/:submissionId", async (ctx) => {
      const principal = await authorize(ctx, "write", scoped);
      const body = await readJson(ctx.request, ctx.options.maxBody);
      return json(200, await ctx.services.submissions.update(principal, ctx.params.id!, ctx.params.submissionId!, body));
    })
    .on("DELETE", "/api/forms/:id/submissions/:submissionId", async (ctx) => {
      const principal = await authorize(ctx, "delete", scoped);
      await ctx.services.submissions.remove(principal, ctx.params.id!, ctx.params.submissionId!);
      return noContent();
    })
    .on("GET", "/api/forms/:id/submissions/:submissionId/files/:fileId", async (ctx) => {
      const principal = await authorize(ctx, "read", scoped);
      const file = await ctx.services.files.get(principal, ctx.params.id!, ctx.params.submissionId!, ctx.params.fileId!);
      // Submitted bytes are untrusted: always a download, never sniffed into HTML, and sandboxed if opened anyway.
      return new Response(file.content as Uint8Array<ArrayBuffer>, {
        headers: {
          "content-type": file.type,
          "content-length": String(file.size),
          "content-disposition": attachmentHeader(file.name),
          "x-content-type-options": "nosniff",
          "content-security-policy": "sandbox",
          "cache-control": "private, no-store",
        },
      });
    })
    .on("POST", "/api/submissions/erase", async (ctx) => {
      const principal = await authorize(ctx, "admin");
      return json(200, await ctx.services.retention.erase(principal, await readJson(ctx.request, ctx.options.maxBody)));
    });
}
