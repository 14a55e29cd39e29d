// Destinations of a form (docs/api.md, "Destinations"): where a kept submission is sent besides the webhooks.
// Their deliveries are queued with the webhooks' (webhook-outbox.ts, queueStatement) and sent by the same sender.
import { and, asc, count, eq } from "drizzle-orm";
import pkg from "../../../package.json" with { type: "json" };
import type { Db, Store } from "../../db/client.ts";
import { destinations, type DestinationRow } from "../../db/schema.ts";
import { MAX_DESTINATIONS_PER_FORM, type Principal } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { iso } from "../../lib/time.ts";
import { lazySchema, parseBody } from "../../lib/validate.ts";
import { recordActivity } from "../people/activity.ts";
import { fieldsOf, type FormsService } from "../forms.ts";
import { destinationCircuitsOf } from "./shares.ts";
import { checkPublicAddress, type WebhookOptions } from "./webhooks.ts";
import { type Condition, shownWhen, storedWhen, whenSchema } from "./conditions.ts";
import { configSchemas, DESTINATION_TYPES, type DestinationType, ownerAddresses, SECRET_KEYS, shownConfig } from "./destination-types/index.ts";
import type { AttemptResult } from "./destination-types/kind.ts";
import { newTokenCache, sendToDestination } from "./senders/index.ts";

/** A destination as every answer shows it: its secrets left out. */
export interface Destination {
  id: string;
  formId: string;
  type: DestinationType;
  config: Record<string, unknown>;
  fields: Record<string, string> | null;
  when: Condition[];
  enabled: boolean;
  createdAt: string;
}

/** What a test send got. */
export interface DestinationTestResult {
  ok: boolean;
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
}

/** At most this many fields in a destination's `fields` map. */
export const MAX_MAPPED_FIELDS = 200;

const fieldsSchema = (z: Parameters<Parameters<typeof lazySchema>[0]>[0]) =>
  z
    .record(z.string().min(1).max(200), z.string({ error: "fields maps a form field to a destination's name (a string)." }).trim().min(1).max(200), {
      error: 'fields must be an object such as {"email": "Email address"}.',
    })
    .refine((map) => Object.keys(map).length <= MAX_MAPPED_FIELDS, `fields maps at most ${MAX_MAPPED_FIELDS} fields.`);

/** The body of POST /api/forms/{id}/destinations (the OpenAPI document reads it too; config is checked by type after). */
export const createSchema = lazySchema((z) =>
  z.strictObject({
    type: z.enum(DESTINATION_TYPES, { error: `type must be one of ${DESTINATION_TYPES.join(", ")}.` }),
    config: z.record(z.string(), z.unknown(), { error: "config must be an object of the type's settings." }),
    fields: fieldsSchema(z).nullish(),
    when: whenSchema(z).nullish(),
    enabled: z.boolean({ error: "enabled must be true or false." }).optional(),
  }),
);

/** The body of PATCH …/destinations/{destinationId}: config (its secrets kept unless given), fields, when, enabled. */
export const updateSchema = lazySchema((z) =>
  z.strictObject({
    config: z.record(z.string(), z.unknown(), { error: "config must be an object of the type's settings." }).optional(),
    fields: fieldsSchema(z).nullish(),
    when: whenSchema(z).nullish(),
    enabled: z.boolean({ error: "enabled must be true or false." }).optional(),
  }),
);

const typeSchemas = lazySchema((z) => configSchemas(z));

/**
 * The body of POST …/destinations with each type's config spelled out, its secrets writeOnly: what a destination
 * is in the forms file (docs/cli.md, "Forms as code"). The API itself reads `createSchema` and checks config by
 * type after, so that its errors name the type.
 */
export const typedCreateSchema = lazySchema(async (z) => {
  const [body, schemas] = await Promise.all([createSchema(), typeSchemas()]);
  const [first, ...rest] = DESTINATION_TYPES.map((type) => body.extend({ type: z.literal(type), config: schemas[type] }));
  return z.discriminatedUnion("type", [first!, ...rest], { error: `type must be one of ${DESTINATION_TYPES.join(", ")}.` });
});

const toDestination = (row: DestinationRow): Destination => ({
  id: row.id,
  formId: row.formId,
  type: row.type as DestinationType,
  config: shownConfig(JSON.parse(row.config)),
  fields: row.fields ? JSON.parse(row.fields) : null,
  when: shownWhen(row.when),
  enabled: row.enabled,
  createdAt: iso(row.createdAt),
});

/** Destinations per form: added, listed, changed, removed, tried; their deliveries ride the webhooks' outbox. */
export function destinationsService(store: Store, formsService: FormsService, options: WebhookOptions) {
  const tokens = newTokenCache();

  /**
   * The type's config checked, every address the owner chose refused when private (naming its key). With `stored`
   * (a change), a secret the change leaves out is kept only while the destination sends where it did: a saved
   * token goes nowhere but where it was given for (docs/api.md, "Destinations").
   */
  async function checkedConfig(type: DestinationType, config: Record<string, unknown>, stored?: Record<string, unknown>): Promise<Record<string, unknown>> {
    const kept = stored ? Object.fromEntries(Object.entries(stored).filter(([key]) => SECRET_KEYS.includes(key) && !(key in config))) : {};
    const schemas = await typeSchemas();
    const parsed = schemas[type].safeParse({ ...kept, ...config });
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      const key = issue.path.map(String).join(".");
      const field = key ? `config.${key}` : "config";
      if (issue.code === "unrecognized_keys")
        throw new ApiError("invalid_body", `Unknown field "config.${issue.keys[0]}" for ${type}.`, { field: `config.${issue.keys[0]}` });
      const message = key && !(issue.path[0]! in config) && !(issue.path[0]! in kept) ? `${field} is required for ${type}.` : issue.message;
      throw new ApiError("invalid_body", message, { field });
    }
    const checked = parsed.data as Record<string, unknown>;
    const addresses = ownerAddresses(type, checked);
    const [secret] = Object.keys(kept);
    if (stored && secret) {
      const before = new Map(ownerAddresses(type, stored).map(({ key, url }) => [key, url]));
      const moved = [...new Set([...before.keys(), ...addresses.map(({ key }) => key)])].find(
        (key) => before.get(key) !== addresses.find((a) => a.key === key)?.url,
      );
      if (moved) {
        throw new ApiError("invalid_body", `config.${secret} is required again when ${moved} changes: a saved secret is sent only where it was given for.`, {
          field: `config.${secret}`,
        });
      }
    }
    for (const { key, url } of addresses) await checkPublicAddress(options, url, key);
    return checked;
  }

  async function findDestination(db: Db, formId: string, destinationId: string): Promise<DestinationRow> {
    const [row] = await db
      .select()
      .from(destinations)
      .where(and(eq(destinations.formId, formId), eq(destinations.id, destinationId)));
    if (!row) throw new ApiError("not_found", `No destination ${destinationId} on this form.`);
    return row;
  }

  return {
    /** Adds a destination to a form; the answer leaves its secrets out. */
    async create(principal: Principal, formRef: string, body: unknown): Promise<Destination> {
      const input = parseBody(await createSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      const config = await checkedConfig(input.type, input.config);
      const [{ n } = { n: 0 }] = await store.db.select({ n: count() }).from(destinations).where(eq(destinations.formId, form.id));
      if (n >= MAX_DESTINATIONS_PER_FORM) {
        throw new ApiError("invalid_body", `A form may have at most ${MAX_DESTINATIONS_PER_FORM} destinations; remove one first.`);
      }
      const row: DestinationRow = {
        id: newId("destination"),
        formId: form.id,
        type: input.type,
        config: JSON.stringify(config),
        fields: input.fields && Object.keys(input.fields).length ? JSON.stringify(input.fields) : null,
        when: storedWhen(input.when),
        enabled: input.enabled ?? true,
        createdAt: Date.now(),
        failureStreak: 0,
        circuitOpenUntil: null,
      };
      await store.write(async (tx) => {
        await tx.insert(destinations).values(row);
        await recordActivity(tx, principal, "destination.create", row.id, `Added a ${row.type} destination to "${form.name}".`);
      });
      return toDestination(row);
    },

    /** A form's destinations, oldest first, secrets left out. */
    async list(principal: Principal, formRef: string): Promise<Destination[]> {
      const form = await formsService.findRow(principal, formRef);
      const rows = await store.db
        .select()
        .from(destinations)
        .where(eq(destinations.formId, form.id))
        .orderBy(asc(destinations.createdAt), asc(destinations.id));
      return rows.map(toDestination);
    },

    /**
     * Changes a destination: a config given replaces the old one but for the secrets it leaves out, which are kept
     * unless the change moves where it sends.
     */
    async update(principal: Principal, formRef: string, destinationId: string, body: unknown): Promise<Destination> {
      const input = parseBody(await updateSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      const old = await findDestination(store.db, form.id, destinationId);
      const changes: Partial<DestinationRow> = {};
      if (input.config) changes.config = JSON.stringify(await checkedConfig(old.type as DestinationType, input.config, JSON.parse(old.config)));
      if (input.fields !== undefined) changes.fields = input.fields && Object.keys(input.fields).length ? JSON.stringify(input.fields) : null;
      if (input.when !== undefined) changes.when = storedWhen(input.when);
      if (input.enabled !== undefined) changes.enabled = input.enabled;
      if (Object.keys(changes).length === 0) return toDestination(old);
      return store.write(async (tx) => {
        await findDestination(tx, form.id, destinationId);
        const [row] = await tx.update(destinations).set(changes).where(eq(destinations.id, destinationId)).returning();
        const what = Object.keys(changes).join(", ");
        await recordActivity(tx, principal, "destination.update", destinationId, `Changed ${what} of the ${row!.type} destination on "${form.name}".`);
        return toDestination(row!);
      });
    },

    /** Removes a destination and its delivery log; what was not sent yet is not sent. */
    async remove(principal: Principal, formRef: string, destinationId: string): Promise<void> {
      const form = await formsService.findRow(principal, formRef);
      await store.write(async (tx) => {
        const gone = await findDestination(tx, form.id, destinationId);
        await tx.delete(destinations).where(eq(destinations.id, destinationId));
        await recordActivity(tx, principal, "destination.delete", destinationId, `Removed the ${gone.type} destination from "${form.name}".`);
      });
    },

    /**
     * Sends a test submission to the destination now, and says what came of it (nothing is stored): the form's
     * fields as far as known, each with a sample value.
     */
    async test(principal: Principal, formRef: string, destinationId: string): Promise<DestinationTestResult> {
      const form = await formsService.findRow(principal, formRef);
      const row = await findDestination(store.db, form.id, destinationId);
      const target = { id: row.id, type: row.type, config: JSON.parse(row.config), fields: row.fields ? JSON.parse(row.fields) : null };
      const names = [...new Set([...fieldsOf(form), ...Object.keys(target.fields ?? {}), "email"])];
      const data = Object.fromEntries(names.map((name) => [name, /e-?mail/i.test(name) ? "test@example.com" : `Test ${name}`]));
      const now = new Date().toISOString();
      const payload = JSON.stringify({
        type: "submission.test",
        timestamp: now,
        data: { form: { id: form.id, slug: form.slug, name: form.name, mode: form.mode }, submission: { id: "sub_test", createdAt: now, data } },
      });
      const result: AttemptResult = await sendToDestination(target, payload, {
        allowPrivate: options.allowPrivate,
        resolve: options.resolve,
        timeoutMs: 10_000,
        signal: AbortSignal.timeout(15_000),
        userAgent: `formsvc/${pkg.version}`,
        tokens,
      });
      return { ok: result.ok, responseStatus: result.responseStatus, durationMs: Math.round(result.durationMs), error: result.error };
    },

    /** The circuits of a form's destinations (`url` is the type), for the dashboard. */
    circuits: (formId: string, now: number) => destinationCircuitsOf(store.db, formId, now),
  };
}
