// Conditions (`when`) on webhooks and destinations, and the routes of a form's notification email: what a
// submission must hold to be sent somewhere (docs/api.md, "Conditions"). Every value compares as text, trimmed
// and ignoring case; a list value (checkboxes) matches when any item does; a missing field is empty.
// The outbox decides in SQL, in the statement that queues a kept submission's deliveries (no read before the
// write); the notification's route is decided in the write's code. Both read the folded values made here.
import { sql, type SQL } from "drizzle-orm";
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
function textsOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.length === 0 ? [""] : value.flatMap(textsOf);
  if (value === null || value === undefined) return [""];
  return [fold(typeof value === "object" ? JSON.stringify(value) : String(value))];
}

/** The submission's values as [field, folded text] pairs, the form the SQL of whenHolds reads. */
export function factsOf(data: Record<string, unknown>): string {
  return JSON.stringify(Object.entries(data).flatMap(([field, value]) => textsOf(value).map((text) => [field, text])));
}

/** Whether one folded text meets a stored condition. */
function meets(c: StoredCondition, text: string): boolean {
  if (c.op === "notEmpty") return text !== "";
  if (c.op === "in") return (c.match as string[]).includes(text);
  return c.op === "equals" ? text === c.match : text.includes(c.match as string);
}

/** Whether a submission's data meets every stored condition (in code: the notification's routes). */
export function matches(stored: string | null, data: Record<string, unknown>): boolean {
  if (!stored) return true;
  return (JSON.parse(stored) as StoredCondition[]).every((c) => {
    const texts = Object.hasOwn(data, c.field) ? textsOf(data[c.field]) : [""];
    return texts.some((text) => meets(c, text));
  });
}

/**
 * The SQL that holds when a submission (its `facts`, see factsOf) meets every condition stored in `column`:
 * the same rule as `matches`, for the statement that queues deliveries without a read before it.
 */
export function whenHolds(column: SQL, facts: SQL): SQL {
  const field = sql`json_extract(c.value, '$.field')`;
  const match = sql`json_extract(c.value, '$.match')`;
  const some = (test: SQL) => sql`EXISTS (SELECT 1 FROM json_each(${facts}) f WHERE json_extract(f.value, '$[0]') = ${field} AND ${test})`;
  const text = sql`json_extract(f.value, '$[1]')`;
  const missing = sql`NOT EXISTS (SELECT 1 FROM json_each(${facts}) f WHERE json_extract(f.value, '$[0]') = ${field})`;
  return sql`NOT EXISTS (SELECT 1 FROM json_each(coalesce(${column}, '[]')) c WHERE NOT (CASE json_extract(c.value, '$.op')
    WHEN 'notEmpty' THEN ${some(sql`${text} <> ''`)}
    WHEN 'equals' THEN ${some(sql`${text} = ${match}`)} OR (${match} = '' AND ${missing})
    WHEN 'contains' THEN ${some(sql`instr(${text}, ${match}) > 0`)} OR (${match} = '' AND ${missing})
    WHEN 'in' THEN ${some(sql`${text} IN (SELECT value FROM json_each(c.value, '$.match'))`)}
      OR (${missing} AND EXISTS (SELECT 1 FROM json_each(c.value, '$.match') WHERE value = ''))
    ELSE 0 END))`;
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
export function notificationTo(stored: string | null, fallback: string | null, data: Record<string, unknown>): string | null {
  if (!stored) return fallback;
  const route = (JSON.parse(stored) as { to: string; when: string | null }[]).find((r) => matches(r.when, data));
  return route ? route.to : fallback;
}
