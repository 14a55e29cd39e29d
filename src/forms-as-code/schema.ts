import type { z } from "zod";
import { DEFAULT_FILTER_THRESHOLD } from "../domain/limits.ts";
import { DEFAULT_SPAM_RETENTION_DAYS } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { formName, lazySchema, slug } from "../lib/validate.ts";
import { NO_PAGE } from "../services/form-page.ts";
import { updateSchema } from "../services/forms.ts";
import { destinationIdentity } from "../services/outbox/destination-types/index.ts";
import { typedCreateSchema as destinationCreate, updateSchema as destinationUpdate } from "../services/outbox/destinations.ts";
import { createSchema as webhookCreate, updateSchema as webhookUpdate } from "../services/outbox/webhooks.ts";

// The forms file (docs/cli.md, "Forms as code"): `{"$schema", "forms": {"<slug>": {...}}}`. A form's entry is the
// body of PATCH /api/forms/{id} (less the slug, which is the entry's key) with `name` required, and its webhooks
// and destinations as the bodies of POST .../webhooks and .../destinations: a setting the API gains is a setting of
// the file, with no edit here.

/** The path the file's JSON Schema is served at (no key), which `pull` writes into `$schema`. */
export const SCHEMA_PATH = "/api/formsvc.schema.json";

/** A `${NAME}` reference to an environment variable: how the file holds a secret. */
export const REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * What each setting is when the file leaves it out (what a form made with only a name shows): apply resets a
 * setting to this. test/unit/forms-file.test.ts fails when a setting of the API has no entry here or a wrong one.
 */
export const FORM_DEFAULTS: Record<string, unknown> = {
  isActive: true,
  notificationEmail: null,
  redirectUrl: null,
  allowedDomains: [],
  fileUploads: false,
  retentionDays: null,
  spamRetentionDays: DEFAULT_SPAM_RETENTION_DAYS,
  captcha: null,
  fields: [],
  otherFields: "keep",
  confirmation: null,
  spamRules: null,
  spamFilter: { enabled: true, threshold: DEFAULT_FILTER_THRESHOLD },
  page: NO_PAGE,
  notificationRoutes: [],
  payment: null,
};

/**
 * Settings whose object the form shows exactly as it was given (no defaults filled in): compared key by key both
 * ways. Any other object setting is compared on the keys the file gives, since the form fills in the rest.
 */
export const SHOWN_AS_GIVEN = new Set(["spamRules"]);

/** One collection of a form beside its settings: the body that makes an item, what an item is known by, its fields' defaults. */
export interface Collection {
  /** An item as the file holds it: an object, or a union of objects told apart by one key (a destination's type). */
  body: () => Promise<z.ZodType>;
  /** The same item in the file and in the API's list has the same identity; a changed one is replaced, or updated. */
  identity(item: Record<string, unknown>): string;
  defaults: Record<string, unknown>;
  /**
   * The API's operations (by operationId) that list, add and remove an item, and the list's field and item
   * parameter; with `update`, a changed item is updated in place (its id and delivery log kept) with the keys of
   * `updateBody` instead of being replaced.
   */
  operations: { list: string; add: string; remove: string; update?: string; field: string; itemParam: string };
  updateBody?: () => Promise<z.ZodObject>;
}

/** The collections of a form, by the name the file and the CLI's backend give them. */
export const COLLECTIONS = {
  webhooks: {
    body: webhookCreate,
    identity: (item) => String(item.url),
    defaults: { description: null, format: "standard", when: [] },
    operations: {
      list: "listWebhooks",
      add: "createWebhook",
      remove: "deleteWebhook",
      update: "updateWebhook",
      field: "webhooks",
      itemParam: "webhookId",
    },
    updateBody: webhookUpdate,
  },
  destinations: {
    body: destinationCreate,
    identity: (item) => destinationIdentity(item.type, item.config),
    defaults: { fields: null, when: [], enabled: true },
    operations: {
      list: "listDestinations",
      add: "createDestination",
      remove: "deleteDestination",
      update: "updateDestination",
      field: "destinations",
      itemParam: "destinationId",
    },
    updateBody: destinationUpdate,
  },
} satisfies Record<string, Collection>;
export type CollectionName = keyof typeof COLLECTIONS;

/** The keys an item of a collection may have: its object's, or those of every object of its union. */
export function bodyKeys(schema: z.ZodType): string[] {
  const options = "options" in schema && Array.isArray(schema.options) ? (schema.options as z.ZodType[]) : [schema];
  return [...new Set(options.flatMap((option) => Object.keys((option as Partial<z.ZodObject>).shape ?? {})))];
}

/** A form's settings in the file: the update body without its slug, its name required. */
export const formSettingsSchema = lazySchema(async (z) => (await updateSchema()).omit({ slug: true }).extend({ name: formName(z) }));

/** A form's entry in the file: its settings and its collections. */
export const formEntrySchema = lazySchema(async (z) => {
  const collections = Object.fromEntries(
    await Promise.all(Object.entries(COLLECTIONS).map(async ([name, collection]) => [name, z.array(await collection.body()).optional()])),
  ) as Record<CollectionName, z.ZodOptional<z.ZodArray<z.ZodType>>>;
  return (await formSettingsSchema()).extend(collections);
});

/** The whole file. */
export const formsFileSchema = lazySchema(async (z) =>
  z.strictObject({
    $schema: z.string().optional().describe("The address of this schema, so that editors complete the file."),
    forms: z.record(slug(z), await formEntrySchema()).describe("Each form by its slug."),
  }),
);

type Json = Record<string, unknown>;

/** Replaces every write-only property (a secret) by a `${NAME}` reference, and calls `found` with its path. */
function referencesForSecrets(node: unknown, path: string[], found?: (path: string) => void): unknown {
  if (Array.isArray(node)) return node.map((item) => referencesForSecrets(item, path, found));
  if (node === null || typeof node !== "object") return node;
  const object = node as Json;
  if (object.writeOnly === true) {
    found?.(path.join("."));
    return {
      type: "string",
      pattern: REFERENCE.source,
      writeOnly: true,
      description: `A secret: a \${NAME} reference to an environment variable, read when the file is applied. The file never holds the value.`,
    };
  }
  // Only a property's name adds to the path: items, unions and a record's values are the same place.
  return Object.fromEntries(
    Object.entries(object).map(([key, value]) =>
      key === "properties" && value && typeof value === "object"
        ? [key, Object.fromEntries(Object.entries(value as Json).map(([name, schema]) => [name, referencesForSecrets(schema, [...path, name], found)]))]
        : [key, referencesForSecrets(value, path, found)],
    ),
  );
}

/** The file's JSON Schema (draft 2020-12), with its address as `$id`; secrets are references. */
export async function formsFileJsonSchema(baseUrl: string): Promise<Json> {
  const { z } = await import("zod");
  const { $schema, ...schema } = z.toJSONSchema(await formsFileSchema(), { target: "draft-2020-12", io: "input", unrepresentable: "any" }) as Json;
  return {
    $schema,
    $id: `${baseUrl}${SCHEMA_PATH}`,
    title: "formsvc forms file",
    description: "The forms of a formsvc account as code: formsvc pull writes it, formsvc plan and formsvc apply read it (docs/cli.md).",
    ...(referencesForSecrets(schema, []) as Json),
  };
}

/** The paths of the secrets of a form's entry (`captcha.secret`, `webhooks.secret`, `destinations.config.token`): shown as (sensitive), never written. */
export async function secretPaths(): Promise<Set<string>> {
  const { z } = await import("zod");
  const paths = new Set<string>();
  referencesForSecrets(z.toJSONSchema(await formEntrySchema(), { io: "input", unrepresentable: "any" }), [], (path) => paths.add(path));
  return paths;
}

/** Parses a value with a schema; the first problem is a 400 naming where in the file it is. */
export function parseAt<T extends z.ZodType>(schema: T, value: unknown, where: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const at = [where, ...issue.path.map(String)].filter(Boolean).join(".");
  const message = issue.code === "unrecognized_keys" ? `unknown setting "${issue.keys[0]}"` : issue.message;
  throw new ApiError("invalid_body", `${at}: ${message}`, { field: at });
}
