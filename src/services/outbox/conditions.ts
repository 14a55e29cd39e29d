// Conditions (`when`) on webhooks and destinations, and the routes of a form's notification email: what a
// submission must hold to be sent somewhere (docs/api.md, "Conditions"). Every value compares as text, trimmed
// and ignoring case; a list value (checkboxes) matches when any item does; a missing field is empty.
// Decided in code, once per post and before the write that keeps it (its lock is never held for a post's
// values): the outbox's deliveries and the notification's route both read the facts made here.
import type { Zod } from "../../lib/validate.ts";

export const CONDITION_OPS = ["equals", "contains", "in", "notEmpty"] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** One condition as the owner writes it. */
export interface Condition {
  field: string;
  op: ConditionOp;
  value?: string | string[];
}

/** A condition as stored: the owner's, with its value folded for comparison (never shown). */
interface StoredCondition extends Condition {
  match?: string | string[];
}

/** At most this many conditions on one webhook, destination or route. */
export const MAX_CONDITIONS = 20;
/** At most this many routes on a form. */
export const MAX_ROUTES = 20;

/** How every value compares: as text, trimmed, ignoring case. */
export const fold = (value: string) => value.trim().toLowerCase();

/** The schema of a `when` list (the OpenAPI document reads it too); `name` is the body's key at fault. */
export function whenSchema(z: Zod, name = "when") {
  const condition = z
    .strictObject({
      field: z
        .string({ error: `${name}: field must be a field's name.` })
        .min(1, `${name}: field must be a field's name.`)
        .max(200),
      op: z.enum(CONDITION_OPS, { error: `${name}: op must be one of ${CONDITION_OPS.join(", ")}.` }),
      value: z.union([z.string().max(1000), z.array(z.string().max(1000)).max(100)]).optional(),
    })
    .superRefine((c, ctx) => {
      const ok = c.op === "notEmpty" ? c.value === undefined : c.op === "in" ? Array.isArray(c.value) : typeof c.value === "string";
      if (!ok) {
        const wanted = c.op === "notEmpty" ? "no value" : c.op === "in" ? "a value that is a list of strings" : "a value that is a string";
        ctx.addIssue({ code: "custom", message: `${name}: ${c.op} takes ${wanted}.`, path: ["value"] });
      }
    });
  return z
    .array(condition, { error: `${name} must be a list of {field, op, value?}.` })
    .max(MAX_CONDITIONS, `${name} holds at most ${MAX_CONDITIONS} conditions.`);
}

/** The conditions as stored (JSON), each with its folded value; null for none (everything matches). */
export function storedWhen(when: Condition[] | null | undefined): string | null {
  if (!when || when.length === 0) return null;
  const stored: StoredCondition[] = when.map((c) => ({
    ...c,
    ...(c.value === undefined ? {} : { match: Array.isArray(c.value) ? c.value.map(fold) : fold(c.value) }),
  }));
  return JSON.stringify(stored);
}

/** The conditions as the owner wrote them, from their stored JSON. */
export function shownWhen(stored: string | null): Condition[] {
  if (!stored) return [];
  return (JSON.parse(stored) as StoredCondition[]).map(({ field, op, value }) => (value === undefined ? { field, op } : { field, op, value }));
}

/** A submitted value as the texts it compares by: one per item of a list, one (empty) for a missing or empty one. */
function textsOf(value: unknown, into: Set<string>): void {
  if (Array.isArray(value)) {
    if (value.length === 0) into.add("");
    for (const item of value) textsOf(item, into);
  } else if (value === null || value === undefined) into.add("");
  else into.add(fold(typeof value === "object" ? JSON.stringify(value) : String(value)));
}

/** What `contains` searches: a field's distinct texts joined by a character no condition's value holds. */
const SEPARATOR = "\u0000";

/** One field's distinct folded texts, and the same joined for `contains`. */
interface FieldTexts {
  texts: Set<string>;
  joined: string;
}

/**
 * A submission's values as conditions read them, each field folded once and only when a condition names it, and
 * each distinct condition decided once: however many webhooks, destinations and routes ask, a post's cost is its
 * own values' (a list of many items) plus one look-up per condition value, never their product.
 */
export interface Facts {
  field(name: string): FieldTexts;
  decided: Map<string, boolean>;
}

/** The facts of a submission's data (see Facts): nothing is read of it until a condition asks. */
export function factsOf(data: Record<string, unknown>): Facts {
  const fields = new Map<string, FieldTexts>();
  return {
    field(name) {
      let found = fields.get(name);
      if (!found) {
        const texts = new Set<string>();
        textsOf(Object.hasOwn(data, name) ? data[name] : undefined, texts);
        found = { texts, joined: [...texts].join(SEPARATOR) };
        fields.set(name, found);
      }
      return found;
    },
    decided: new Map(),
  };
}

/** Whether any of a field's texts meets a stored condition. */
function meets(c: StoredCondition, field: FieldTexts): boolean {
  if (c.op === "notEmpty") return field.texts.size > 1 || !field.texts.has("");
  if (c.op === "in") return (c.match as string[]).some((value) => field.texts.has(value));
  if (c.op === "equals") return field.texts.has(c.match as string);
  const match = c.match as string;
  // A value holding the separator could match across two items: those few are asked item by item.
  return match.includes(SEPARATOR) ? [...field.texts].some((text) => text.includes(match)) : field.joined.includes(match);
}

/** Whether a submission (its facts) meets every stored condition: webhooks, destinations and the notification's routes. */
export function matches(stored: string | null, facts: Facts): boolean {
  if (!stored) return true;
  return (JSON.parse(stored) as StoredCondition[]).every((c) => {
    const key = JSON.stringify([c.field, c.op, c.match]);
    let met = facts.decided.get(key);
    if (met === undefined) {
      met = meets(c, facts.field(c.field));
      facts.decided.set(key, met);
    }
    return met;
  });
}

/** One route of a form's notification email. */
export interface NotificationRoute {
  to: string;
  when: Condition[];
}

/** The routes as stored (each `when` folded), or null for none. */
export function storedRoutes(routes: NotificationRoute[] | null | undefined): string | null {
  if (!routes || routes.length === 0) return null;
  return JSON.stringify(routes.map((route) => ({ to: route.to, when: storedWhen(route.when) })));
}

/** The routes as the owner wrote them. */
export function shownRoutes(stored: string | null): NotificationRoute[] {
  if (!stored) return [];
  return (JSON.parse(stored) as { to: string; when: string | null }[]).map((route) => ({ to: route.to, when: shownWhen(route.when) }));
}

/** Where a submission's notification goes: the first route it matches, else the form's notificationEmail. */
export function notificationTo(stored: string | null, fallback: string | null, facts: Facts): string | null {
  if (!stored) return fallback;
  const route = (JSON.parse(stored) as { to: string; when: string | null }[]).find((r) => matches(r.when, facts));
  return route ? route.to : fallback;
}
