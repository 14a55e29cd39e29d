import type { z } from "zod";
import { ApiError } from "../errors.ts";

/** Parses `input` with `schema`, turning the first problem into a 400 that names the field at fault. */
export function parseBody<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    throw new ApiError("invalid_body", "The body must be a JSON object.");
  }
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  if (issue.code === "unrecognized_keys") {
    const field = issue.keys[0]!;
    throw new ApiError("invalid_body", `Unknown field "${field}".`, { field });
  }
  const field = issue.path.map(String).join(".") || undefined;
  const missing = field !== undefined && issue.path.length === 1 && !((issue.path[0] as string) in input);
  const message = missing ? `${field} is required.` : issue.message;
  throw new ApiError("invalid_body", message, { field });
}

const HOST_LABEL = "[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?";
const DOMAIN = new RegExp(`^(?:\\*\\.)?${HOST_LABEL}(?:\\.${HOST_LABEL})*(?::\\d{1,5})?$`);
const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;
export const SLUG = /^[a-z0-9][a-z0-9-]{2,63}$/;

/** True for one plain email address such as you@example.com (no display name, no spaces, nothing a header could misread). */
export const isEmail = (value: string) => EMAIL.test(value);

/** zod's `z`, as the schema makers below receive it. */
export type Zod = typeof z;

let zod: Promise<Zod> | undefined;
const loadZod = () => {
  zod ??= import("zod").then((m) => m.z);
  return zod;
};

/**
 * A schema made on first use, with zod itself imported then: loading zod and making its schemas costs every
 * start several ms and 4 to 7 MB of resident memory, and most starts of the CLI or the server validate
 * nothing (a server that only takes submissions never does). Nothing on the start path imports zod.
 */
export function lazySchema<T>(make: (z: Zod) => T): () => Promise<Awaited<T>> {
  let schema: Promise<Awaited<T>> | undefined;
  return () => (schema ??= loadZod().then(make) as Promise<Awaited<T>>);
}

export const formName = (z: Zod) =>
  z
    .string({ error: "name must be a string." })
    .trim()
    // min and max rather than a refine, so that the range shows in the OpenAPI document.
    .min(1, "name must be 1 to 200 characters.")
    .max(200, "name must be 1 to 200 characters.");

export const email = (z: Zod) =>
  z
    .string({ error: "notificationEmail must be an email address." })
    .trim()
    .max(254, "notificationEmail must be at most 254 characters.")
    .regex(EMAIL, "notificationEmail must be an email address such as you@example.com.");

/** An absolute http(s) URL, as a string. */
export function httpUrl(z: Zod, field: string) {
  return z
    .string({ error: `${field} must be an absolute http(s) URL.` })
    .trim()
    .max(2048, `${field} must be at most 2048 characters.`)
    .refine((value) => isHttpUrl(value), `${field} must be an absolute http(s) URL such as https://example.com/thanks.`);
}

/** A written port must be one a browser could be on: 1 to 65535. */
const portInRange = (entry: string) => !entry.includes(":") || (Number(entry.split(":")[1]) >= 1 && Number(entry.split(":")[1]) <= 65535);

export const allowedDomains = (z: Zod) =>
  z
    .array(
      z
        .string({ error: "allowedDomains must be an array of host names." })
        .trim()
        .toLowerCase()
        .refine(
          (d) => DOMAIN.test(d) && portInRange(d),
          "allowedDomains entries are host names such as example.com, *.example.com or localhost:3000 (no scheme, no path).",
        ),
      { error: "allowedDomains must be an array of host names." },
    )
    .max(100, "allowedDomains may list at most 100 host names.")
    .transform((list) => [...new Set(list)]);

export const slug = (z: Zod) =>
  z.string({ error: "slug must be a string." }).regex(SLUG, "slug must be 3 to 64 lowercase letters, digits and dashes, starting with a letter or digit.");

/** How many days submissions may be kept (retentionDays, spamRetentionDays); null, for ever, is allowed beside. */
export const RETENTION_DAYS = { min: 1, max: 3650 } as const;

/** A number of days to keep submissions: a whole number within RETENTION_DAYS (null, for ever, is allowed by the caller). */
export function retentionDays(z: Zod, field: string) {
  const message = `${field} must be a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep for ever.`;
  return z.number({ error: message }).int(message).min(RETENTION_DAYS.min, message).max(RETENTION_DAYS.max, message);
}

/** True for an absolute URL with the http or https scheme. */
export function isHttpUrl(value: string): boolean {
  // The URL parser drops tabs and line breaks silently; a stored address must be the one that is used.
  if (/[\u0000-\u001f\u007f]/.test(value) || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "";
}
