// What the destination types are, derived from their list (list.ts): the type names, the secrets, what a
// destination is known by, the schema of each type's config and the addresses a destination calls.
import type { ZodObject } from "zod";
import type { Zod } from "../../../lib/validate.ts";
import { address, type DestinationKind, type OwnerAddress } from "./kind.ts";
import { DESTINATION_KINDS } from "./list.ts";

/** The name of a destination type (`ntfy`). */
export type DestinationType = (typeof DESTINATION_KINDS)[number]["type"];

const kinds: readonly DestinationKind[] = DESTINATION_KINDS;

/** Every type's name, in the list's order. */
export const DESTINATION_TYPES = kinds.map((kind) => kind.type) as [DestinationType, ...DestinationType[]];

/** The type's declaration, or undefined for a name this version does not know. */
export function kindOf(type: string): DestinationKind | undefined {
  return kinds.find((kind) => kind.type === type);
}

/** Every type's declaration, for what lists them all (the dashboard's forms). */
export const destinationKinds = (): readonly DestinationKind[] => kinds;

/** The settings that are secrets, of every type: written, never shown (in no answer, CLI output, export or log). */
export const SECRET_KEYS: readonly string[] = [...new Set(kinds.flatMap((kind) => kind.secrets))];

/** What identifies a destination in a forms file: `telegram:-100123`, `airtable:app1/Leads`, `teams`. */
export function destinationIdentity(type: unknown, config: unknown): string {
  const keys: readonly string[] = kindOf(String(type))?.targets ?? [];
  const values = keys.map((key) => String((config as Record<string, unknown> | null)?.[key] ?? ""));
  return values.length === 0 ? String(type) : `${String(type)}:${values.join("/")}`;
}

/** A type's config schema: its own, its secrets marked writeOnly, and `baseUrl` when it calls a vendor's API. */
function configSchema(z: Zod, kind: DestinationKind): ZodObject {
  const schema = kind.schema(z);
  const secrets = Object.fromEntries(kind.secrets.map((key) => [key, schema.shape[key]!.meta({ writeOnly: true })]));
  const baseUrl = kind.vendorBase
    ? {
        baseUrl: address(z, "config.baseUrl").optional(),
      }
    : {};
  return schema.extend({ ...secrets, ...baseUrl });
}

/** The schema of each type's config, by type. */
export function configSchemas(z: Zod): Record<DestinationType, ZodObject> {
  return Object.fromEntries(kinds.map((kind) => [kind.type, configSchema(z, kind)])) as Record<DestinationType, ZodObject>;
}

/** The addresses a destination calls that the owner chose (each checked as a webhook's address is), by the key that holds it. */
export function ownerAddresses(type: string, config: Record<string, unknown>): OwnerAddress[] {
  const kind = kindOf(type);
  const base = typeof config.baseUrl === "string" ? [{ key: "config.baseUrl", url: config.baseUrl }] : [];
  return [...base, ...(kind?.addresses?.(config as never) ?? [])];
}

/** The config as shown: every key but the secrets, as given. */
export function shownConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(config).filter(([key]) => !SECRET_KEYS.includes(key)));
}
