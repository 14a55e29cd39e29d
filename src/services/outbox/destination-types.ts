// The kinds of destination (docs/api.md, "Destinations"): each type's settings, which of them are secrets,
// and which addresses it calls. The requests themselves are the sender's (src/workers/destinations/).
import type { Zod } from "../../lib/validate.ts";

export const DESTINATION_TYPES = ["google_sheets", "airtable", "notion", "mailchimp", "telegram", "teams", "ntfy"] as const;
export type DestinationType = (typeof DESTINATION_TYPES)[number];

/**
 * The settings that are secrets: written, never shown (in no answer, CLI output, export or log). Each type's schema
 * below marks its own as writeOnly, which the forms file's JSON Schema reads (test/unit/agents-declarations.test.ts
 * fails when the two differ).
 */
export const SECRET_KEYS = ["serviceAccountKey", "token", "apiKey", "botToken", "url"] as const;

/**
 * The settings that name where a destination's submissions go: with the type, what the forms file knows a
 * destination by (docs/cli.md, "Forms as code"). A Teams destination has none: its address is a secret.
 */
export const DESTINATION_TARGETS = {
  google_sheets: ["spreadsheetId", "sheet"],
  airtable: ["baseId", "table"],
  notion: ["databaseId"],
  mailchimp: ["audienceId"],
  telegram: ["chatId"],
  teams: [],
  ntfy: ["topic"],
} as const satisfies Record<DestinationType, readonly string[]>;

/** What identifies a destination in a forms file: `telegram:-100123`, `airtable:app1/Leads`, `teams`. */
export function destinationIdentity(type: unknown, config: unknown): string {
  const keys: readonly string[] = DESTINATION_TARGETS[type as DestinationType] ?? [];
  const values = keys.map((key) => String((config as Record<string, unknown> | null)?.[key] ?? ""));
  return values.length === 0 ? String(type) : `${String(type)}:${values.join("/")}`;
}

/** What the sender of a destination's delivery works with. */
export interface DestinationTarget {
  id: string;
  type: string;
  config: Record<string, unknown>;
  /** {formField: destinationName}, or null: every field under its own name. */
  fields: Record<string, string> | null;
}

/** The vendor's API each type calls when `baseUrl` does not replace its scheme, host and port. */
export const VENDOR_BASES: Record<Exclude<DestinationType, "teams">, string> = {
  google_sheets: "https://sheets.googleapis.com",
  airtable: "https://api.airtable.com",
  notion: "https://api.notion.com",
  mailchimp: "https://{dc}.api.mailchimp.com",
  telegram: "https://api.telegram.org",
  ntfy: "https://ntfy.sh",
};

/** A Mailchimp key ends with its data centre: `…-us21`. */
export const MAILCHIMP_KEY = /-(us\d{1,3})$/;

/** The fields of a Google service account's key file that formsvc uses. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

const text = (z: Zod, key: string, max = 500) =>
  z
    .string({ error: `${key} must be a string.` })
    .trim()
    .min(1, `${key} is required.`)
    .max(max, `${key} must be at most ${max} characters.`);
const address = (z: Zod, key: string) =>
  text(z, key, 2048).refine((value) => /^https?:\/\/[^/?#\s]+/i.test(value) && URL.canParse(value), `${key} must be an absolute http(s) address.`);

/** The schema of each type's config; a secret is marked writeOnly here, the one place each type's keys are declared. */
export function configSchemas(z: Zod) {
  const secret = { writeOnly: true };
  const baseUrl = address(z, "config.baseUrl").optional();
  const serviceAccountKey = z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: "config.serviceAccountKey must be the key file's JSON, as an object or as its text." })
    .meta(secret)
    .transform((value, ctx) => {
      let key: unknown = value;
      if (typeof value === "string") {
        try {
          key = JSON.parse(value);
        } catch {
          key = null;
        }
      }
      const k = key as Partial<ServiceAccountKey> | null;
      if (!k || typeof k !== "object" || typeof k.client_email !== "string" || typeof k.private_key !== "string" || typeof k.token_uri !== "string") {
        ctx.addIssue({
          code: "custom",
          message: "config.serviceAccountKey must be a service account's key file (with client_email, private_key and token_uri).",
        });
        return z.NEVER;
      }
      if (!/^https?:\/\//i.test(k.token_uri) || !URL.canParse(k.token_uri)) {
        ctx.addIssue({ code: "custom", message: "config.serviceAccountKey's token_uri must be an absolute http(s) address." });
        return z.NEVER;
      }
      return { client_email: k.client_email, private_key: k.private_key, private_key_id: k.private_key_id, token_uri: k.token_uri } as ServiceAccountKey;
    });
  return {
    google_sheets: z.strictObject({ serviceAccountKey, spreadsheetId: text(z, "config.spreadsheetId"), sheet: text(z, "config.sheet", 100), baseUrl }),
    airtable: z.strictObject({ token: text(z, "config.token").meta(secret), baseId: text(z, "config.baseId"), table: text(z, "config.table"), baseUrl }),
    notion: z.strictObject({ token: text(z, "config.token").meta(secret), databaseId: text(z, "config.databaseId"), baseUrl }),
    mailchimp: z.strictObject({
      apiKey: text(z, "config.apiKey").regex(MAILCHIMP_KEY, "config.apiKey must end with its data centre, such as -us21.").meta(secret),
      audienceId: text(z, "config.audienceId"),
      status: z.enum(["subscribed", "pending"], { error: "config.status must be subscribed or pending." }).default("pending"),
      emailField: text(z, "config.emailField", 200).default("email"),
      baseUrl,
    }),
    telegram: z.strictObject({
      botToken: text(z, "config.botToken").meta(secret),
      chatId: z.union([text(z, "config.chatId", 100), z.number().int()]).transform(String),
      baseUrl,
    }),
    teams: z.strictObject({ url: address(z, "config.url").meta(secret) }),
    ntfy: z.strictObject({
      topic: text(z, "config.topic", 64).regex(/^[-_A-Za-z0-9]+$/, "config.topic must be letters, digits, - and _ only."),
      token: text(z, "config.token").meta(secret).optional(),
      priority: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)], { error: "config.priority must be 1 to 5." }).optional(),
      tags: z
        .array(text(z, "config.tags", 50))
        .max(10)
        .optional(),
      baseUrl,
    }),
  } satisfies Record<DestinationType, unknown>;
}

/** The addresses a destination calls that the owner chose (each checked as a webhook's address is), by the key that holds it. */
export function ownerAddresses(config: Record<string, unknown>): { key: string; url: string }[] {
  const found: { key: string; url: string }[] = [];
  if (typeof config.baseUrl === "string") found.push({ key: "config.baseUrl", url: config.baseUrl });
  if (typeof config.url === "string") found.push({ key: "config.url", url: config.url });
  const key = config.serviceAccountKey as ServiceAccountKey | undefined;
  if (key && typeof key.token_uri === "string") found.push({ key: "config.serviceAccountKey.token_uri", url: key.token_uri });
  return found;
}

/** The config as shown: every key but the secrets, as given. */
export function shownConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !(SECRET_KEYS as readonly string[]).includes(key)));
}
