import { json } from "../http/respond.ts";
import { parseIsoDate, parseWhen } from "../lib/time.ts";
import { dailyStats, MAX_DAYS } from "../services/form-stats.ts";
import { FORM, operation } from "./operation.ts";

/** The service's range from the declared parameters (already checked: ISO 8601 dates, and `since` also a span back). */
export const dailyRange = ({ since, until }: { since?: string; until?: string }) => ({
  since: since === undefined ? null : parseWhen(since),
  until: until === undefined ? null : parseIsoDate(until),
});

/** /api/forms/{id}/stats/daily: the form's submissions, spam and page views per UTC day, from its day counters, for a chart. */
export const statsOperations = [
  operation({
    method: "GET",
    path: `${FORM}/stats/daily`,
    operationId: "dailyStats",
    summary: "Submissions per day",
    description: `Every UTC day from since to until (both included; by default the 30 days up to today), with 0 for a day without submissions; at most ${MAX_DAYS} days. Counts are as things stand: a submission marked spam or deleted later no longer counts on its day.`,
    tag: "Forms",
    scope: "form",
    permission: "read",
    query: ["since", "until"],
    queryNotes: {
      since:
        "The first day, as an ISO 8601 date (2026-11-01) or any time within it, UTC, or the day a span back from now falls on (7d); by default 29 days before until.",
      until: "The last day, included, as an ISO 8601 date or any time within it, UTC; by default today.",
    },
    ok: {
      status: 200,
      description: "The form's days, oldest first.",
      schema: "DailyStats",
      define: (z) =>
        z.object({
          formId: z.string(),
          since: z.string().describe("The first day, YYYY-MM-DD (UTC)."),
          until: z.string().describe("The last day, YYYY-MM-DD (UTC)."),
          days: z.array(
            z.object({
              date: z.string().describe("YYYY-MM-DD (UTC)."),
              submissions: z.int().min(0).describe("Submissions kept that day (not spam)."),
              spam: z.int().min(0).describe("Submissions held as spam that day."),
              views: z.int().min(0).describe("Visitors who opened the form's page or embed that day, each counted once (no cookie; see docs/api.md)."),
            }),
          ),
        }),
    },
    handler: async (ctx) => json(200, await dailyStats(ctx.services, ctx.principal, ctx.params.id!, dailyRange(ctx.query))),
  }),
];
