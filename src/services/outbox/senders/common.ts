// What every destination's sender shares: the event it sends, the fields as mapped, the vendor's address with
// the owner's baseUrl, and an outcome in the owner's words for the delivery log.
import type { AttemptResult, DestinationEvent, SendContext } from "../destination-types/kind.ts";
import { ownerText } from "../../../lib/defang.ts";
import type { Answer } from "../../../lib/http-request.ts";

/** A submitted value as text: a list joined with ", ", an object (a file) as JSON. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) return value.map(valueText).join(", ");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

/** The submission's fields as sent: with `fields`, only the named ones under their given names, in its order; else all as they are. */
export function mappedEntries(data: Record<string, unknown>, fields: Record<string, string> | null): [string, unknown][] {
  if (!fields) return Object.entries(data);
  return Object.entries(fields).flatMap(([field, name]) => (Object.hasOwn(data, field) ? [[name, data[field]] as [string, unknown]] : []));
}

/** The vendor's address for `path`, on `baseUrl`'s scheme, host and port when the owner gave one. */
export function vendorUrl(base: string, config: { baseUrl?: string }, path: string): string {
  const origin = config.baseUrl ? new URL(config.baseUrl).origin : base;
  return origin + path;
}

/** A short plain-text account of a submission: its form, then one line per field, as every owner channel shows them. */
export function plainText(event: DestinationEvent, entries: [string, unknown][], max: number): string {
  const lines = [
    `New submission to ${ownerText(event.data.form.name)}`,
    "",
    ...entries.map(([name, value]) => `${ownerText(name)}: ${ownerText(valueText(value))}`),
  ];
  const text = lines.join("\n");
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** The attempt's outcome: the vendor's answer, and when it failed, why in the owner's words. */
export function outcome(answer: Answer, explain: (status: number) => string | null): AttemptResult {
  const why = answer.ok ? null : answer.status === null ? answer.error : (explain(answer.status) ?? `answered ${answer.status}`);
  return { ok: answer.ok, responseStatus: answer.status, durationMs: answer.durationMs, responseSnippet: answer.snippet, error: why };
}

/** A failure before any request: nothing the vendor could take. */
export function refusedBefore(error: string, final = false): AttemptResult {
  return { ok: false, responseStatus: null, durationMs: 0, responseSnippet: null, error, final };
}

/** The `message` (or `description`, `detail`) of a vendor's JSON error answer, when it has one. */
export function vendorMessage(answer: Answer): string | null {
  try {
    const body = JSON.parse(answer.text) as Record<string, unknown>;
    const error = body.error as Record<string, unknown> | string | undefined;
    const found = [body.message, body.description, body.detail, typeof error === "object" ? error?.message : error].find((m) => typeof m === "string");
    return typeof found === "string" ? found.slice(0, 200) : null;
  } catch {
    return null;
  }
}

/** The headers of a JSON request to a vendor, with the sender's User-Agent. */
export const jsonHeaders = (context: SendContext<unknown>, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  "user-agent": context.userAgent,
  ...extra,
});

/** A refusal's text with the vendor's own message after it, when it gave one. */
export const withMessage = (text: string, message: string | null) => (message ? `${text}: ${message}` : text);
