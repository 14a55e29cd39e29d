import type { z } from "zod";
import { ApiError } from "../errors.ts";
import { PAGE_LIMIT } from "../domain/limits.ts";
import { EXPORT_FORMATS } from "../domain/types.ts";
import { parseIsoDate, parseWhen } from "../lib/time.ts";
import { lazySchema } from "../lib/validate.ts";
import { FILTERS, PAYMENT_LISTS } from "../services/submissions/submissions.ts";

// Every query parameter of the API, once: the zod schema that reads it (the document shows the same schema),
// what it means, and the sentence a client gets when its value does not fit. A query string is text: an
// integer parameter is coerced from its digits only ("05" is 5; "1.5", "+5" and " 5" are refused).

interface Parameter {
  schema: z.ZodType;
  description: string;
  /** The 400's message for a value that does not fit. */
  invalid(value: string): string;
  integer?: true;
}

/** The query parameters by name, checked in this order (so a request with two bad ones hears of the first). */
export const queryParameters = lazySchema((z) => {
  const table = {
    format: {
      schema: z.enum(EXPORT_FORMATS).default("csv"),
      description: "csv, ndjson (one submission a line) or json (one array).",
      invalid: (value: string) => `format must be one of ${EXPORT_FORMATS.join(", ")}, not "${value}".`,
    },
    limit: {
      schema: z.int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max).default(PAGE_LIMIT.default),
      description: `Items in a page, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}; out of range is 400 invalid_parameter, never clamped.`,
      invalid: (value: string) => `limit must be an integer from ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max}, not "${value}".`,
      integer: true as const,
    },
    offset: {
      schema: z.int().min(0).default(0),
      description: "Items to skip. Prefer `after` for deep pages: it costs the same on every page.",
      invalid: (value: string) => `offset must be an integer of 0 or more, not "${value}".`,
      integer: true as const,
    },
    order: {
      schema: z.enum(["asc", "desc"]).default("desc"),
      description: "By createdAt, then id.",
      invalid: (value: string) => `order must be asc or desc, not "${value}".`,
    },
    filter: {
      schema: z.enum(FILTERS).default("all"),
      description:
        "all: every kept submission (not spam, not waiting for its opt-in link or its payment); unread / starred: kept and that flag; spam: spam only; unconfirmed: waiting for the opt-in link; awaiting_payment: waiting for the payment.",
      invalid: (value: string) => `filter must be one of ${FILTERS.join(", ")}, not "${value}".`,
    },
    payment: {
      schema: z.enum(PAYMENT_LISTS),
      description: "paid, expired or refunded: only submissions whose payment is in that state (paid leaves out refunded ones; expired ones were never kept).",
      invalid: (value: string) => `payment must be one of ${PAYMENT_LISTS.join(", ")}, not "${value}".`,
    },
    since: {
      schema: z.string().refine((text) => parseWhen(text) !== null),
      description:
        "Only submissions created strictly after this ISO 8601 date or date-time (2026-11-22 or 2026-11-22T12:00:00Z), or after a span back from the time of the request (90s, 15m, 24h, 7d, 2w).",
      invalid: (value: string) =>
        `since must be an ISO 8601 date or date-time such as 2026-11-22T12:00:00Z, or a span back from now such as 24h or 7d, not "${value}".`,
    },
    until: {
      schema: isoDate(z),
      description: "Up to this ISO 8601 date or date-time, inclusive (2026-11-30).",
      invalid: (value: string) => `until must be an ISO 8601 date or date-time such as 2026-11-30, not "${value}".`,
    },
    q: {
      schema: z.string().max(200),
      description: "Text that some value of the data must contain, ignoring case.",
      invalid: () => "q must be at most 200 characters.",
    },
    after: {
      // A submission id for submissions; the activity log reads its own kind of id (act_) with its own rule.
      schema: z.string().regex(/^(sub|act)_[0-9a-z]{22}$/),
      description: "Keyset paging: the `nextCursor` of the previous page. Cannot be combined with offset.",
      invalid: (value: string) => `after must be a submission id (the nextCursor of a page), not "${value}".`,
    },
    pending: {
      schema: z.enum(["true", "false"]).default("false"),
      description: "true: also send the pending notifications now, not only the failed ones.",
      invalid: (value: string) => `pending must be true or false, not "${value}".`,
    },
    webhook: { schema: z.string(), description: "Only the deliveries of this webhook endpoint (whk_…).", invalid: (value: string) => `webhook: "${value}"` },
    destination: {
      schema: z.string(),
      description: "Only the deliveries of this destination (dst_…).",
      invalid: (value: string) => `destination: "${value}"`,
    },
  };
  return table satisfies Record<string, Parameter>;
});

// The refine is not in the document's schema (a JSON Schema cannot say "a day that exists"); the message is.
const isoDate = (z: typeof import("zod").z) => z.string().refine((text) => parseIsoDate(text) !== null);

type Table = Awaited<ReturnType<typeof queryParameters>>;

/** The name of a query parameter. */
export type QueryName = keyof Table;

/** The values of the named parameters, as their schemas give them: defaults filled in, the others undefined when left out. */
export type QueryValues<N extends QueryName> = {
  [K in N]: Table[K]["schema"] extends z.ZodDefault ? z.output<Table[K]["schema"]> : z.output<Table[K]["schema"]> | undefined;
};

/**
 * Reads the named parameters from a query string's pairs (or the CLI's flags) with their schemas; the first
 * value that does not fit is a 400 invalid_parameter naming it. Parameters not named are ignored.
 */
export async function parseQuery<N extends QueryName>(names: readonly N[], input: Record<string, string | undefined>): Promise<QueryValues<N>> {
  if (names.length === 0) return {} as QueryValues<N>;
  const table = await queryParameters();
  const values: Record<string, unknown> = {};
  for (const [name, parameter] of Object.entries(table) as [QueryName, Parameter][]) {
    if (!names.includes(name as N)) continue;
    const raw = input[name];
    const value = parameter.integer && raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : raw;
    const result = parameter.schema.safeParse(value);
    // A parameter left out is its default, or not there at all.
    if (!result.success && raw === undefined) continue;
    if (!result.success) throw new ApiError("invalid_parameter", parameter.invalid(raw ?? ""), { field: name });
    values[name] = result.data;
  }
  return values as QueryValues<N>;
}

/** Every path parameter, by name: what it holds. */
export const PATH_PARAMETERS: Record<string, string> = {
  id: "The form's id (frm_…) or its slug.",
  submissionId: "The submission's id (sub_…).",
  fileId: "The file's id (fil_…), as in the submission's data.",
  webhookId: "The webhook endpoint's id (whk_…).",
  destinationId: "The destination's id (dst_…).",
  deliveryId: "The delivery's id (dlv_…).",
  keyId: "The key's id (key_…), not the key itself.",
  slug: "The form's public slug.",
};
