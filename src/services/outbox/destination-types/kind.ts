// What a destination type is (docs/api.md, "Destinations"): one module per type declares it with `destinationKind`,
// and index.ts lists them. Everything else (the API's body, the OpenAPI document, the MCP tools, the forms file,
// the dashboard's inputs, the senders' dispatch) is derived from that list.
import type { z, ZodObject, ZodType } from "zod";
import type { Answer } from "../../../lib/http-request.ts";
import type { Zod } from "../../../lib/validate.ts";

/** The outcome of one attempt (a webhook's or a destination's). */
export interface AttemptResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  responseSnippet: string | null;
  error: string | null;
  /** Nothing a retry could change (a destination's submission without an email address): failed at once. */
  final?: boolean;
}

/** What the sender of a destination's delivery works with; `C` is its type's config, as its schema made it. */
export interface DestinationTarget<C = Record<string, unknown>> {
  id: string;
  type: string;
  config: C;
  /** {formField: destinationName}, or null: every field under its own name. */
  fields: Record<string, string> | null;
}

/** The standard event a destination's delivery carries (docs/api.md, "Webhooks"). */
export interface DestinationEvent {
  data: {
    form: { id: string; slug: string; name: string; mode: string };
    submission: { id: string; createdAt: string; data: Record<string, unknown> };
  };
}

/** A request as a sender makes it; the worker sends it to checked addresses only. */
export type Call = (url: string, init: { method: string; headers: Record<string, string>; body?: string }) => Promise<Answer>;

/** Access tokens by what obtained them, kept until shortly before they expire. */
export type TokenCache = Map<string, { token: string; until: number }>;

/** What a sender gets: the destination, its event, the way to call out, and the caches that outlive one delivery. */
export interface SendContext<C = Record<string, unknown>> {
  target: DestinationTarget<C>;
  event: DestinationEvent;
  call: Call;
  userAgent: string;
  tokens: TokenCache;
}

/** One input of a type's form in the dashboard: its config key, its label, and how it is typed in. */
export interface ConfigInput {
  key: string;
  label: string;
  kind?: "secret" | "multiline" | "status";
  optional?: boolean;
  placeholder?: string;
}

/** An address a destination calls that its owner chose, by the key that holds it (`config.baseUrl`). */
export interface OwnerAddress {
  key: string;
  url: string;
}

/** Everything about one destination type; `S` is its config's schema without baseUrl (added for a vendor's base). */
// biome-ignore lint/suspicious/noExplicitAny: any type's declaration, whatever its shape
export interface DestinationKind<T extends string = string, S extends ZodObject<any, any> = ZodObject<any, any>> {
  type: T;
  /** Its name in the dashboard. */
  title: string;
  /** Its settings; every message names its key as `config.<key>`. */
  schema: (z: Zod) => S;
  /** The settings that are secrets: written, never shown. The schema marks them writeOnly from this list. */
  secrets: readonly (keyof S["shape"] & string)[];
  /** The settings that name where its submissions go: with the type, what the forms file knows it by. */
  targets: readonly (keyof S["shape"] & string)[];
  /** The vendor's API, whose scheme, host and port an optional `baseUrl` replaces; none: no baseUrl. */
  vendorBase?: string;
  /** Addresses besides baseUrl that the owner's settings choose (a Teams url, a key's token_uri). */
  addresses?(config: z.output<S>): OwnerAddress[];
  /** The dashboard's inputs, in order (docs/dashboard.md). */
  inputs: readonly ConfigInput[];
  /** Sends one delivery to the vendor. */
  send(context: SendContext<z.output<S> & { baseUrl?: string }>): Promise<AttemptResult>;
}

/** Declares a destination type; its `type` is kept as a literal, its config typed by its schema. */
export function destinationKind<const T extends string, S extends ZodObject>(kind: DestinationKind<T, S>): DestinationKind<T, S> {
  return kind;
}

/** A required text setting, trimmed, with a message naming it. */
export const text = (z: Zod, key: string, max = 500) =>
  z
    .string({ error: `${key} must be a string.` })
    .trim()
    .min(1, `${key} is required.`)
    .max(max, `${key} must be at most ${max} characters.`);

/** An absolute http(s) address setting. */
export const address = (z: Zod, key: string): ZodType<string, string> =>
  text(z, key, 2048).refine((value) => /^https?:\/\/[^/?#\s]+/i.test(value) && URL.canParse(value), `${key} must be an absolute http(s) address.`);
