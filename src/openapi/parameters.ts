import { z } from "zod";
import { EXPORT_FORMATS } from "../domain/types.ts";
import { FILTERS } from "../services/submissions.ts";

// The query parameters as zod schemas, for the document. They are read on the hot path by parsePaging and
// parseListQuery, which stay hand-written (no zod per request); test/unit/openapi.test.ts checks that
// the two agree on every edge (limit 0, 1, 100, 101, abc, ...), so a range changed on one side fails the suite.

/** Every query parameter of the API, by name: its schema and what it means. */
export function queryParameters() {
  return {
    limit: { schema: z.int().min(1).max(100).default(50), description: "Items in a page, 1 to 100; out of range is 400 invalid_parameter, never clamped." },
    offset: { schema: z.int().min(0).default(0), description: "Items to skip. Prefer `after` for deep pages: it costs the same on every page." },
    after: {
      schema: z.string().regex(/^sub_[0-9a-z]{22}$/),
      description: "Keyset paging: the `nextCursor` of the previous page. Cannot be combined with offset.",
    },
    order: { schema: z.enum(["asc", "desc"]).default("desc"), description: "By createdAt, then id." },
    filter: {
      schema: z.enum(FILTERS).default("all"),
      description: "all: every submission that is not spam; unread / starred: not spam and that flag; spam: spam only.",
    },
    since: {
      schema: z.string(),
      description: "Only submissions created strictly after this ISO 8601 date or date-time (2026-11-22 or 2026-11-22T12:00:00Z).",
    },
    q: { schema: z.string().max(200), description: "Text that some value of the data must contain, ignoring case." },
    format: { schema: z.enum(EXPORT_FORMATS).default("csv"), description: "csv, ndjson (one submission a line) or json (one array)." },
    pending: {
      schema: z.enum(["true", "false"]).default("false"),
      description: "true: also send the pending notifications now, not only the failed ones.",
    },
    webhook: { schema: z.string(), description: "Only the deliveries of this webhook endpoint (whk_…)." },
  };
}

/** The name of a query parameter. */
export type QueryName = keyof ReturnType<typeof queryParameters>;

/** Every path parameter, by name: what it holds. */
export const PATH_PARAMETERS: Record<string, string> = {
  id: "The form's id (frm_…) or its slug.",
  submissionId: "The submission's id (sub_…).",
  fileId: "The file's id (fil_…), as in the submission's data.",
  webhookId: "The webhook endpoint's id (whk_…).",
  deliveryId: "The delivery's id (dlv_…).",
  keyId: "The key's id (key_…), not the key itself.",
  slug: "The form's public slug.",
};
