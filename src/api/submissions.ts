import { ApiError } from "../errors.ts";
import { json, noContent } from "../http/respond.ts";
import { CONTENT_TYPES, exportStream } from "../services/submissions/export.ts";
import { downloadHeaders } from "../lib/files.ts";
import { parseWhen } from "../lib/time.ts";
import { eraseSchema } from "../services/retention.ts";
import { patchSchema, type ListQuery } from "../services/submissions/submissions.ts";
import { FORM, operation } from "./operation.ts";
import type { QueryValues } from "./query.ts";

const SUBMISSION = `${FORM}/submissions/{submissionId}`;
/** The parameters that select submissions; the list adds its page, the export its format. */
const SELECT = ["order", "filter", "payment", "since", "q"] as const;
/** The list's parameters, in the order the document shows them. */
export const LIST_QUERY = ["limit", "offset", "after", ...SELECT] as const;

/** The service's query from the declared parameters: a cursor and an offset together are refused; `since` becomes milliseconds. */
export function listQuery(values: Partial<QueryValues<(typeof LIST_QUERY)[number]>> & QueryValues<(typeof SELECT)[number]>): ListQuery {
  const { limit = 50, offset = 0, after, order, filter, payment, since, q } = values;
  if (after !== undefined && offset !== 0) {
    throw new ApiError("invalid_parameter", "offset cannot be combined with after: a cursor already says where the page starts.", { field: "offset" });
  }
  return {
    limit,
    offset,
    since: since === undefined ? null : parseWhen(since),
    order,
    filter,
    payment: payment ?? null,
    after: after ?? null,
    search: q?.trim() || null,
  };
}

/**
 * /api/forms/{id}/submissions: the list, the export, one submission's get, patch and delete, and its files
 * (docs/api.md, "Submissions"; docs/api.md, "Files"); and /api/submissions/erase, which crosses the account's forms (docs/api.md, "Retention and erasure").
 */
export const submissionOperations = [
  operation({
    method: "GET",
    path: `${FORM}/submissions`,
    operationId: "listSubmissions",
    summary: "List submissions",
    tag: "Submissions",
    scope: "form",
    permission: "read",
    query: LIST_QUERY,
    ok: { status: 200, description: "One page, with the form's field names and the total the filter matches.", schema: "SubmissionPage" },
    handler: async (ctx) => json(200, await ctx.services.submissions.list(ctx.principal, ctx.params.id!, listQuery(ctx.query))),
  }),
  operation({
    method: "GET",
    path: `${FORM}/submissions/export`,
    operationId: "exportSubmissions",
    summary: "Export submissions",
    description:
      "Every matching submission, streamed. CSV has one column per field after id and createdAt; a value that a spreadsheet would read as a formula is escaped.",
    tag: "Submissions",
    scope: "form",
    permission: "read",
    query: ["format", ...SELECT],
    ok: {
      status: 200,
      description: "A download (Content-Disposition: attachment).",
      media: {
        "text/csv": "CSV, a header row first.",
        "application/x-ndjson": "One submission object a line.",
        "application/json": { description: "One array of submission objects.", arrayOf: "Submission" },
      },
      headers: { "Content-Disposition": 'attachment; filename="{slug}-submissions.{format}"' },
    },
    async handler(ctx) {
      const { format, ...select } = ctx.query;
      const exported = await ctx.services.submissions.export(ctx.principal, ctx.params.id!, listQuery(select));
      return new Response(exportStream(exported.chunks(format)), {
        headers: {
          "content-type": CONTENT_TYPES[format],
          "content-disposition": `attachment; filename="${exported.form.slug}-submissions.${format}"`,
        },
      });
    },
  }),
  operation({
    method: "GET",
    path: SUBMISSION,
    operationId: "getSubmission",
    summary: "Get a submission",
    tag: "Submissions",
    scope: "form",
    permission: "read",
    ok: { status: 200, description: "The submission.", schema: "Submission" },
    handler: async (ctx) => json(200, await ctx.services.submissions.get(ctx.principal, ctx.params.id!, ctx.params.submissionId!)),
  }),
  operation({
    method: "PATCH",
    path: SUBMISSION,
    operationId: "updateSubmission",
    summary: "Mark a submission",
    description: "Read, starred, spam: any of the three.",
    tag: "Submissions",
    scope: "form",
    permission: "write",
    body: {
      name: "SubmissionUpdate",
      schema: patchSchema,
      example: { isRead: true, isStarred: true },
      notes: {
        isSpam:
          "true moves it to filter=spam with spamReason owner; false moves it back, spamReason null, and sends once the notification and webhooks a spam verdict held back. Either value, even the current one, teaches the account's learning filter.",
      },
    },
    ok: { status: 200, description: "The updated submission.", schema: "Submission" },
    handler: async (ctx) => json(200, await ctx.services.submissions.update(ctx.principal, ctx.params.id!, ctx.params.submissionId!, ctx.body)),
  }),
  operation({
    method: "DELETE",
    path: SUBMISSION,
    operationId: "deleteSubmission",
    summary: "Delete a submission",
    description: "With its files; the form's counters and field list stay right.",
    tag: "Submissions",
    scope: "form",
    permission: "delete",
    ok: { status: 204, description: "Deleted." },
    async handler(ctx) {
      await ctx.services.submissions.remove(ctx.principal, ctx.params.id!, ctx.params.submissionId!);
      return noContent();
    },
  }),
  operation({
    method: "GET",
    path: `${SUBMISSION}/files/{fileId}`,
    operationId: "downloadFile",
    summary: "Download an uploaded file",
    description: "Always a download, never shown inline: submitted bytes are untrusted.",
    tag: "Files",
    scope: "form",
    permission: "read",
    ok: {
      status: 200,
      description: "The file as uploaded, with the type it was sent with.",
      media: { "application/octet-stream": "The file's bytes (Content-Type is the type it was uploaded with)." },
      headers: { "Content-Disposition": "attachment, with the file's name.", "Content-Security-Policy": "sandbox", "X-Content-Type-Options": "nosniff" },
    },
    async handler(ctx) {
      const file = await ctx.services.files.get(ctx.principal, ctx.params.id!, ctx.params.submissionId!, ctx.params.fileId!);
      return new Response(file.content as Uint8Array<ArrayBuffer>, { headers: downloadHeaders(file) });
    },
  }),
  operation({
    method: "POST",
    path: "/api/submissions/erase",
    operationId: "eraseSubmissions",
    summary: "Erase a person's submissions",
    description: "Every submission of the key's account and mode in which any field's value equals the address (trimmed, case-insensitive), with its files.",
    tag: "Retention",
    scope: "account",
    permission: "admin",
    body: {
      name: "EraseRequest",
      schema: eraseSchema,
      example: { email: "ann@example.com", dryRun: true },
      notes: {
        email: "The address: a submission is erased when any of its values (at any depth) equals it, trimmed and ignoring case.",
        dryRun: "true: only count what would be erased.",
      },
    },
    ok: { status: 200, description: "How many were erased (or would be, with dryRun), by form.", schema: "Erasure" },
    handler: async (ctx) => json(200, await ctx.services.retention.erase(ctx.principal, ctx.body)),
  }),
];
