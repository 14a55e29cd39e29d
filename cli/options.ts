import { iso, parseWhen } from "../src/lib/time.ts";
import type { QueryParams } from "./backend.ts";
import { CliError, EXIT } from "./errors.ts";

/** The flags that select submissions, as `submissions list` and `submissions export` take them. */
export interface SelectionFlags {
  since?: string;
  filter?: string;
  payment?: string;
  order?: string;
}

/** A WHEN (ISO 8601, or a span back from now such as 24h) as the ISO date-time the API takes. */
export function whenToIso(flag: string, value: string, now = Date.now()): string {
  const ms = parseWhen(value, now);
  if (ms === null) {
    throw new CliError(
      `${flag} must be an ISO 8601 date or date-time (2026-11-22, 2026-11-22T12:00:00Z) or a span back from now (90s, 15m, 24h, 7d), not "${value}"`,
      EXIT.usage,
    );
  }
  return iso(ms);
}

/** The API's query parameters for a selection; values are checked by the services (or the server), alike in both modes. */
export function selectionQuery(flags: SelectionFlags): QueryParams {
  return {
    since: flags.since === undefined ? undefined : whenToIso("--since", flags.since),
    filter: flags.filter,
    payment: flags.payment,
    order: flags.order,
  };
}

/** `true` or `false` (also yes/no, 1/0), for flags such as --active. */
export function parseBoolean(flag: string, value: string): boolean {
  const normal = value.trim().toLowerCase();
  if (["true", "yes", "1", "on"].includes(normal)) return true;
  if (["false", "no", "0", "off"].includes(normal)) return false;
  throw new CliError(`${flag} must be true or false, not "${value}"`, EXIT.usage);
}

/** A comma-separated list (`a.com,b.com`); an empty value is the empty list. */
export function parseList(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Refuses a value outside `allowed`, naming the flag. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`${flag} must be one of ${allowed.join(", ")}, not "${value}"`, EXIT.usage);
  return value as T;
}
