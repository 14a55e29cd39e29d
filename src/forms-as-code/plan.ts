import type { Form } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { secretPrefix } from "../lib/webhook-message.ts";
import { isObject, masked, same, shown } from "./compare.ts";
import { type CollectionItem, type DesiredForm, type FormsApi, settingNames } from "./file.ts";
import { type Collection, COLLECTIONS, type CollectionName, FORM_DEFAULTS, SHOWN_AS_GIVEN, secretPaths } from "./schema.ts";

type Json = Record<string, unknown>;

/** One line of a plan: `+` added, `~` changed (old → new), `-` removed. */
export interface Change {
  sign: "+" | "~" | "-";
  /** `contact`, `contact.redirectUrl`, `contact.fields.email`, `contact.webhooks[https://…]`. */
  path: string;
  before?: unknown;
  after?: unknown;
}

/** What apply does to one form, in this order: create or update it, remove, change and add collection items, or delete it. */
export interface FormStep {
  slug: string;
  form: Form | null;
  create: Json | null;
  update: Json;
  add: { collection: CollectionName; body: Json }[];
  drop: { collection: CollectionName; id: string }[];
  change: { collection: CollectionName; id: string; key: string; body: Json }[];
  remove: boolean;
}

/** Every change the file asks of the instance, and the steps that make them. */
export interface Plan {
  changes: Change[];
  steps: FormStep[];
}

/** The plan as printed: one line a change, secrets as (sensitive). */
export function planLines(plan: Plan): string[] {
  return plan.changes.map(({ sign, path, before, after }) => {
    if (sign === "~") return `~ ${path}: ${shown(before)} → ${shown(after)}`;
    const value = sign === "+" ? after : before;
    return value === undefined ? `${sign} ${path}` : `${sign} ${path}: ${shown(value)}`;
  });
}

const fieldsByName = (fields: unknown) => new Map(((Array.isArray(fields) ? fields : []) as Json[]).map((field) => [String(field.name), field]));
const withoutName = ({ name: _, ...rest }: Json) => rest;

/** One line per declared field added, removed or changed, and one for a new order. */
function fieldChanges(slug: string, desired: unknown, current: unknown): Change[] {
  const want = fieldsByName(desired);
  const have = fieldsByName(current);
  const changes: Change[] = [];
  for (const [name, field] of want) {
    const old = have.get(name);
    if (!old) changes.push({ sign: "+", path: `${slug}.fields.${name}`, after: withoutName(field) });
    else if (!same(field, old, { mode: "exact" }))
      changes.push({ sign: "~", path: `${slug}.fields.${name}`, before: withoutName(old), after: withoutName(field) });
  }
  for (const [name, old] of have) if (!want.has(name)) changes.push({ sign: "-", path: `${slug}.fields.${name}`, before: withoutName(old) });
  const kept = [...want.keys()].filter((name) => have.has(name));
  const order = [...have.keys()].filter((name) => want.has(name));
  if (changes.length === 0 && kept.join() !== order.join()) {
    changes.push({ sign: "~", path: `${slug}.fields`, before: order, after: kept });
  }
  return changes;
}

/** The settings of one form that differ, each as a change and as what the update body sends. */
async function settingChanges(desired: DesiredForm, form: Form | null, secrets: Set<string>): Promise<{ changes: Change[]; body: Json }> {
  const changes: Change[] = [];
  const body: Json = {};
  const current = (form ?? {}) as unknown as Json;
  for (const name of await settingNames()) {
    const given = name in desired.given;
    // A setting the file leaves out is its default; one without a known default is left as it is.
    if (!given && !(name in FORM_DEFAULTS)) continue;
    const want = given ? desired.parsed[name] : FORM_DEFAULTS[name];
    const have = form ? current[name] : FORM_DEFAULTS[name];
    const mode = !isObject(want) || SHOWN_AS_GIVEN.has(name) ? "exact" : "given";
    if (form && same(want, have, { mode, secrets, path: name })) continue;
    if (!form && (!given || (name !== "name" && same(want, FORM_DEFAULTS[name], { mode: "exact" })))) continue;
    body[name] = given ? desired.given[name] : FORM_DEFAULTS[name];
    if (name === "fields") {
      changes.push(...fieldChanges(desired.slug, want, form ? have : []));
      continue;
    }
    const isDefault = (value: unknown) => name in FORM_DEFAULTS && same(value, FORM_DEFAULTS[name], { mode: "exact" });
    const path = `${desired.slug}.${name}`;
    const after = masked(desired.given[name] ?? want, secrets, name);
    if (!form || isDefault(have)) changes.push({ sign: "+", path, after });
    else if (isDefault(want)) changes.push({ sign: "-", path, before: have });
    else changes.push({ sign: "~", path, before: have, after });
  }
  return { changes, body };
}

/** Whether a secret of the file is the one the API holds, as far as the start the API shows (`secretPrefix`) tells. */
const sameSecret = (value: unknown, item: Json, key: string) =>
  typeof value !== "string" || item[`${key}Prefix`] === undefined || item[`${key}Prefix`] === secretPrefix(value);

/** Each item's identity, the second and later of one numbered (`teams#2`), so that items alike are matched in order. */
function identities<T>(items: T[], identity: (item: T) => string): string[] {
  const seen = new Map<string, number>();
  return items.map((item) => {
    const key = identity(item);
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? key : `${key}#${n}`;
  });
}

/**
 * The items of a collection to add, change and remove: an item is known by its identity (a webhook by its url, a
 * destination by its type and target); a changed one is updated where the collection can be, else replaced.
 */
async function collectionChanges(desired: DesiredForm, name: CollectionName, items: CollectionItem[], secrets: Set<string>, step: FormStep): Promise<Change[]> {
  const collection: Collection = COLLECTIONS[name];
  const { defaults } = collection;
  const updatable = collection.operations.update && collection.updateBody ? Object.keys((await collection.updateBody()).shape) : null;
  const changes: Change[] = [];
  const wanted = desired.collections[name];
  const wantedKeys = identities(wanted, ({ parsed }) => collection.identity(parsed));
  const haveKeys = identities(items, (item) => collection.identity(item));
  for (const [i, { given, parsed }] of wanted.entries()) {
    const key = wantedKeys[i]!;
    const path = `${desired.slug}.${name}[${key}]`;
    const after = masked(given, secrets, name);
    const old = items[haveKeys.indexOf(key)];
    if (!old) {
      changes.push({ sign: "+", path, after });
      step.add.push({ collection: name, body: given });
      continue;
    }
    const filled: Json = { ...defaults, ...parsed };
    // A secret inside an item (a destination's token) is not compared: the API never shows it (docs/cli.md).
    const differing = Object.entries(filled)
      .filter(([field, value]) =>
        secrets.has(`${name}.${field}`) ? !sameSecret(value, old, field) : !same(value, old[field], { mode: "exact", secrets, path: `${name}.${field}` }),
      )
      .map(([field]) => field);
    if (differing.length === 0) continue;
    const before = Object.fromEntries(Object.keys(filled).map((field) => [field, secrets.has(`${name}.${field}`) ? "(sensitive)" : old[field]]));
    changes.push({ sign: "~", path, before, after });
    // Updated in place only when the update can carry every change (a webhook's only `when`); else replaced.
    if (updatable && differing.every((field) => updatable.includes(field))) {
      const body = Object.fromEntries(Object.entries({ ...defaults, ...given }).filter(([field]) => updatable.includes(field)));
      step.change.push({ collection: name, id: old.id, key, body });
    } else {
      step.drop.push({ collection: name, id: old.id });
      step.add.push({ collection: name, body: given });
    }
  }
  for (const [i, old] of items.entries()) {
    if (wantedKeys.includes(haveKeys[i]!)) continue;
    changes.push({ sign: "-", path: `${desired.slug}.${name}[${haveKeys[i]}]` });
    step.drop.push({ collection: name, id: old.id });
  }
  return changes;
}

/** What applying the file would change on the instance; with `prune`, forms the file does not name are deleted. */
export async function planForms(api: FormsApi, desired: DesiredForm[], { prune = false } = {}): Promise<Plan> {
  const secrets = await secretPaths();
  const forms = await api.forms.list();
  const bySlug = new Map(forms.map((form) => [form.slug, form]));
  const plan: Plan = { changes: [], steps: [] };
  for (const wanted of desired) {
    const form = bySlug.get(wanted.slug) ?? null;
    const step: FormStep = { slug: wanted.slug, form, create: null, update: {}, add: [], drop: [], change: [], remove: false };
    if (!form) plan.changes.push({ sign: "+", path: wanted.slug });
    const { changes, body } = await settingChanges(wanted, form, secrets);
    plan.changes.push(...changes);
    if (form) step.update = body;
    else step.create = { ...body, slug: wanted.slug };
    for (const name of Object.keys(COLLECTIONS) as CollectionName[]) {
      const items = form ? ((await api[name].list(form.id)) as CollectionItem[]) : [];
      plan.changes.push(...(await collectionChanges(wanted, name, items, secrets, step)));
    }
    plan.steps.push(step);
  }
  if (prune) {
    const named = new Set(desired.map((wanted) => wanted.slug));
    for (const form of forms.toSorted((a, b) => a.slug.localeCompare(b.slug))) {
      if (named.has(form.slug)) continue;
      plan.changes.push({ sign: "-", path: form.slug, before: form.name });
      plan.steps.push({ slug: form.slug, form, create: null, update: {}, add: [], drop: [], change: [], remove: true });
    }
  }
  return plan;
}

/** Runs one write of an apply; a refusal names the form (and item) it was for, so that the file can be fixed. */
async function write<T>(where: string, act: () => Promise<T>): Promise<T> {
  try {
    return await act();
  } catch (error) {
    if (error instanceof ApiError) throw new ApiError(error.code, `${where}: ${error.message}`, { field: error.field, cause: error });
    throw error;
  }
}

/** Makes the plan's changes, form by form; returns how many writes it made. */
export async function applyPlan(api: FormsApi, plan: Plan): Promise<number> {
  let writes = 0;
  for (const step of plan.steps) {
    let formId = step.form?.id;
    if (step.create) {
      const body = step.create;
      formId = (await write(step.slug, () => api.forms.create(body))).id;
      writes++;
    } else if (formId && Object.keys(step.update).length > 0) {
      const id = formId;
      await write(step.slug, () => api.forms.update(id, step.update));
      writes++;
    }
    if (!formId) continue;
    const id = formId;
    for (const { collection, id: itemId } of step.drop) {
      await write(`${step.slug}.${collection}`, () => api[collection].remove(id, itemId));
      writes++;
    }
    for (const { collection, id: itemId, key, body } of step.change) {
      await write(`${step.slug}.${collection}[${key}]`, () => api[collection].update!(id, itemId, body));
      writes++;
    }
    for (const { collection, body } of step.add) {
      await write(`${step.slug}.${collection}[${COLLECTIONS[collection].identity(body)}]`, () => api[collection].add(id, body));
      writes++;
    }
    if (step.remove) {
      await write(step.slug, () => api.forms.remove(id));
      writes++;
    }
  }
  return writes;
}
