const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})?$/i;
const SPAN = /^(\d+)(s|m|h|d|w)$/;
const SPAN_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** ISO 8601 UTC with milliseconds: the one way every time is shown. */
export const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Milliseconds for an ISO 8601 date (`2026-11-22`, midnight UTC) or date-time (`2026-11-22T12:00:00Z`;
 * without an offset it is UTC), or null when the text is not one or names a day that does not exist.
 */
export function parseIsoDate(text: string): number | null {
  const date = DATE.exec(text);
  const dateTime = date ? null : DATE_TIME.exec(text);
  const parts = date ?? dateTime;
  if (!parts) return null;
  const [, y, mo, d, h = "00", mi = "00", s = "00", frac = "", zone = "Z"] = parts as unknown as string[];
  const offset = zone.toUpperCase() === "Z" ? "Z" : zone.replace(/^([+-]\d{2})(\d{2})$/, "$1:$2");
  const normal = `${y}-${mo}-${d}T${h}:${mi}:${s}.${frac.padEnd(3, "0").slice(0, 3)}${offset}`;
  const ms = Date.parse(normal);
  if (Number.isNaN(ms)) return null;
  // Date.parse rolls 2026-02-30 over to March: refuse days that do not exist.
  const check = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)));
  if (check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d)) return null;
  if (Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return null;
  return ms;
}

/** Milliseconds in a duration such as `90s`, `15m`, `24h`, `7d` or `2w`, or null when the text is not one. */
export function parseDuration(text: string): number | null {
  const span = SPAN.exec(text.trim());
  return span ? Number(span[1]) * SPAN_MS[span[2] as keyof typeof SPAN_MS] : null;
}

/** Milliseconds for a WHEN of the CLI: an ISO 8601 date or date-time, or a span back from now (`90s`, `24h`, `7d`). */
export function parseWhen(text: string, now = Date.now()): number | null {
  const span = SPAN.exec(text.trim());
  if (span) return now - Number(span[1]) * SPAN_MS[span[2] as keyof typeof SPAN_MS];
  return parseIsoDate(text.trim());
}
