import type { z } from "zod";
import type { Form } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { isObject, referenceName, same } from "./compare.ts";
import {
  bodyKeys,
  COLLECTIONS,
  type CollectionName,
  FORM_DEFAULTS,
  formSettingsSchema,
  formsFileSchema,
  parseAt,
  REFERENCE,
  SCHEMA_PATH,
  secretPaths,
} from "./schema.ts";

type Json = Record<string, unknown>;

/** One item of a collection of the API (a webhook, a destination): the fields its list shows. */
export type CollectionItem = Json & { id: string };

/** The forms of an instance, as plan, apply and pull use them. */
interface FormsOnly {
  forms: {
    list(): Promise<Form[]>;
    create(body: Json): Promise<Form>;
    update(ref: string, body: Json): Promise<Form>;
    remove(ref: string): Promise<void>;
  };
}

/**
 * What plan, apply and pull need of an instance: its forms and each collection the file has. The names are the
 * CLI backend's, so that either mode's backend is one (a collection the file gains must be the backend's too).
 */
export type FormsApi = FormsOnly & Record<CollectionName, CollectionApi>;

/** A collection's list, add and remove (and update, for a collection that has it), as the backend names them. */
export interface CollectionApi {
  list(ref: string): Promise<object[]>;
  add(ref: string, body: Json): Promise<unknown>;
  remove(ref: string, id: string): Promise<void>;
  update?(ref: string, id: string, body: Json): Promise<unknown>;
}

/** A form as the file wants it: its settings as given (references read) and as the API's schemas read them. */
export interface DesiredForm {
  slug: string;
  /** The settings the file gives, as sent to the API. */
  given: Json;
  /** The same, as the update body's schema reads them (trimmed, lowercased, ...): what is compared. */
  parsed: Json;
  collections: Record<CollectionName, { given: Json; parsed: Json }[]>;
}

/** The forms file was not usable: the message names the place in it. Exit 1, and nothing was changed. */
export class FileError extends Error {}

/**
 * Replaces each `${NAME}` where a secret goes (a `writeOnly` key of the schema) by its environment variable, and
 * collects the names that are not set. Everywhere else a string is taken as written: a reference in a title or
 * a message would print the variable in `plan` and publish it on the form's page.
 */
function resolve(value: unknown, path: string[], secrets: Set<string>, env: Record<string, string | undefined>, missing: Set<string>): unknown {
  if (Array.isArray(value)) return value.map((item, i) => resolve(item, [...path, String(i)], secrets, env, missing));
  if (isObject(value)) {
    const entries = Object.entries(value).map(([key, inner]) => [key, resolve(inner, [...path, key], secrets, env, missing)] as const);
    return Object.fromEntries(entries.filter(([, resolved]) => resolved !== UNSET));
  }
  if (typeof value !== "string") return value;
  // path is forms.<slug>.<setting>...: a secret's path within a form starts after the slug, and names no item.
  const secret = secrets.has(
    path
      .slice(2)
      .filter((part) => !/^\d+$/.test(part))
      .join("."),
  );
  if (!secret) return value;
  const reference = REFERENCE.exec(value);
  if (!reference) throw new FileError(`${path.join(".")} is a secret: write a \${NAME} reference to an environment variable, never the value`);
  const found = env[reference[1]!];
  // `${NAME:-}` unset: the file gives no value there, as if the key were left out.
  if (found === undefined && reference[2]) return UNSET;
  if (found === undefined) missing.add(reference[1]!);
  return found ?? "";
}

/** What an optional reference to an unset variable reads as: the key is left out. */
const UNSET = Symbol("unset");

/** Reads the file's text: every reference read from `env`, every form checked by the API's own schemas. Nothing is sent. */
export async function readFormsFile(text: string, env: Record<string, string | undefined>): Promise<DesiredForm[]> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new FileError(`the file is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(raw) || !isObject(raw.forms)) throw new FileError('the file must be an object {"forms": {"<slug>": {...}}}');
  const missing = new Set<string>();
  const resolved = resolve(raw, [], await secretPaths(), env, missing) as Json;
  if (missing.size > 0) throw new FileError(`not set in the environment: ${[...missing].join(", ")}`);
  let file: { forms: Record<string, Json> };
  try {
    file = parseAt(await formsFileSchema(), resolved, "") as typeof file;
  } catch (error) {
    if (error instanceof ApiError) throw new FileError(error.message);
    throw error;
  }
  return Object.entries(resolved.forms as Record<string, Json>).map(([slug, entry]) => {
    const parsedEntry = file.forms[slug]!;
    const given: Json = {};
    const parsed: Json = {};
    const collections = {} as DesiredForm["collections"];
    for (const [key, value] of Object.entries(entry)) {
      if (key in COLLECTIONS) continue;
      given[key] = value;
      parsed[key] = parsedEntry[key];
    }
    for (const name of Object.keys(COLLECTIONS) as CollectionName[]) {
      const items = (entry[name] ?? []) as Json[];
      collections[name] = items.map((item, i) => ({ given: item, parsed: (parsedEntry[name] as Json[])[i]! }));
    }
    return { slug, given, parsed, collections };
  });
}

/** The settings a form's entry may hold, in the order of the API's schema (name first). */
export async function settingNames(): Promise<string[]> {
  const names = Object.keys((await formSettingsSchema()).shape);
  return ["name", ...names.filter((name) => name !== "name")];
}

/** A value put where a secret goes, to ask the schema whether it takes a secret there. */
const PLACEHOLDER = `whsec_${"A".repeat(32)}`;

/**
 * The file of the instance's forms: every setting that is not its default, each webhook and destination, and for
 * each secret a `${FORMSVC_…}` reference (never a value), so that applying it to an instance in the same state
 * changes nothing.
 */
export async function pullFormsFile(api: FormsApi, baseUrl: string): Promise<Json> {
  const names = await settingNames();
  const settings = await formSettingsSchema();
  const secrets = await secretPaths();
  const forms = (await api.forms.list()).toSorted((a, b) => a.slug.localeCompare(b.slug));
  const entries: Record<string, Json> = {};
  for (const form of forms) {
    const entry: Json = {};
    const shown = form as unknown as Json;
    for (const name of names) {
      const value = shown[name];
      if (name !== "name" && name in FORM_DEFAULTS && same(value, FORM_DEFAULTS[name], { mode: "exact" })) continue;
      entry[name] = withReferences(value, name, secrets, settings.shape[name as keyof typeof settings.shape], [form.slug, name]);
    }
    for (const [collection, { body, defaults }] of Object.entries(COLLECTIONS)) {
      const schema = await body();
      const keys = bodyKeys(schema);
      const items = (await api[collection as CollectionName].list(form.id)) as Json[];
      if (items.length === 0) continue;
      entry[collection] = items.map((item, i) => {
        const kept: Json = {};
        for (const key of keys) {
          if (!(key in item) || same(item[key], (defaults as Json)[key], { mode: "exact" })) continue;
          kept[key] = item[key];
        }
        return withReferences(kept, collection, secrets, schema, [form.slug, collection, i + 1]);
      });
    }
    entries[form.slug] = entry;
  }
  return { $schema: `${baseUrl.replace(/\/+$/, "")}${SCHEMA_PATH}`, forms: entries };
}

/** The value at `keys` of an object, or undefined. */
const at = (value: unknown, keys: string[]): unknown => keys.reduce<unknown>((inner, key) => (isObject(inner) ? inner[key] : undefined), value);

/** A copy of the object with `value` at `keys` (whose parents are objects). */
const withAt = (object: Json, [key, ...rest]: string[], value: unknown): Json => ({
  ...object,
  [key!]: rest.length === 0 ? value : withAt(object[key!] as Json, rest, value),
});

/**
 * Adds a reference for each secret the schema takes in this object (a secret of its path, such as `captcha.secret`
 * or `destinations.config.botToken`, that the API never shows). The schema takes it unless, with a value there, it
 * reports the key as unknown: a Telegram destination has no `token`, ALTCHA no `secret`. The reference is named by
 * the form, the item's place and the secret's key: `FORMSVC_CONTACT_DESTINATIONS_1_BOT_TOKEN`.
 */
function withReferences(value: unknown, path: string, secrets: Set<string>, schema: z.ZodType, name: (string | number)[]): unknown {
  if (!isObject(value)) return value;
  let out: Json = value;
  for (const secret of secrets) {
    if (!secret.startsWith(`${path}.`)) continue;
    const keys = secret.slice(path.length + 1).split(".");
    if (at(out, keys) !== undefined || !isObject(at(out, keys.slice(0, -1)))) continue;
    const key = keys.at(-1)!;
    const parent = keys.slice(0, -1).join(".");
    const issues = schema.safeParse(withAt(out, keys, PLACEHOLDER)).error?.issues ?? [];
    const unknown = issues.some((issue) => issue.code === "unrecognized_keys" && issue.path.join(".") === parent && issue.keys.includes(key));
    if (unknown) continue;
    // A destination's secret its type may do without (an ntfy topic's token) may be set or not, which the API
    // does not say: `${NAME:-}` lets the variable stay unset, so that a pulled file plans as it is. A webhook's
    // and a captcha's are always there (the server makes a webhook's), and another instance must get the same.
    const without = path === "destinations" ? (schema.safeParse(out).error?.issues ?? []) : null;
    const optional = without !== null && !without.some((issue) => [...issue.path].join(".") === secret.slice(path.length + 1));
    out = withAt(out, keys, `\${${referenceName(...name, key)}${optional ? ":-" : ""}}`);
  }
  return out;
}
