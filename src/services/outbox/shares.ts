import { sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { destinations, forms, webhookDeliveries, webhooks } from "../../db/schema.ts";
import type { FairShare } from "./leases.ts";

/**
 * At most this many deliveries in flight in one server process per endpoint (one: a receiver gets its events one
 * after another from each process, and a process killed mid-send owes it at most one duplicate) and per account
 * (so that a form with twenty dead endpoints takes four of the sender's slots, not all of them).
 */
export const WEBHOOK_LIMITS = { perEndpoint: 1, perAccount: 4 } as const;
/** How many items per key in flight a process may hold at once: a claim takes a few at a time, sent one after another. */
export const HELD_PER_SLOT = 8;

/** Failed attempts in a row after which an endpoint's circuit opens: none of its deliveries is tried for a while. */
export const CIRCUIT_AFTER = 5;
/** How long a circuit stays open the first time; it doubles with each failed probe, up to CIRCUIT_MAX_MS. */
const CIRCUIT_BASE_MS = 30_000;
const CIRCUIT_MAX_MS = 3_600_000;

/** The webhook outbox's share: per endpoint (or destination) and per account, and none whose circuit is open. */
export const webhookShare: FairShare = {
  keys: [
    { key: sql`coalesce(${webhookDeliveries.webhookId}, ${webhookDeliveries.destinationId})`, limit: WEBHOOK_LIMITS.perEndpoint * HELD_PER_SLOT },
    { key: sql`${forms.accountId}`, limit: WEBHOOK_LIMITS.perAccount * HELD_PER_SLOT },
  ],
  join: sql`LEFT JOIN ${webhooks} ON ${webhooks.id} = ${webhookDeliveries.webhookId} LEFT JOIN ${destinations} ON ${destinations.id} = ${webhookDeliveries.destinationId}`,
  open: (now) =>
    sql`(${webhooks.circuitOpenUntil} IS NULL OR ${webhooks.circuitOpenUntil} <= ${now})
      AND (${destinations.circuitOpenUntil} IS NULL OR ${destinations.circuitOpenUntil} <= ${now})`,
};

/**
 * The mail outbox's share: one message in flight per account in a process (all go to the one SMTP server, over a
 * pool of connections), so that one account's flood does not hold up the others' mail.
 */
export const mailShare: FairShare = { keys: [{ key: sql`${forms.accountId}`, limit: HELD_PER_SLOT }] };

/**
 * The statement that records an attempt on an endpoint's circuit: a success closes it; a failure lengthens the
 * streak, and from the CIRCUIT_AFTER-th in a row opens it (again) for a time that doubles with each failed probe.
 */
export function circuitAfter(db: Db, kind: "webhook" | "destination", id: string, ok: boolean, now: number, scale: number) {
  // Both tables have the same circuit columns; the type of one stands for both.
  const table = (kind === "webhook" ? webhooks : destinations) as typeof webhooks;
  if (ok) {
    return db.update(table).set({ failureStreak: 0, circuitOpenUntil: null }).where(sql`${table.id} = ${id}`).returning({ openUntil: table.circuitOpenUntil });
  }
  const streak = sql`${table.failureStreak} + 1`;
  const openFor = sql`min(${CIRCUIT_MAX_MS}, ${CIRCUIT_BASE_MS} * (1 << min(${streak} - ${CIRCUIT_AFTER}, 10)))`;
  return db
    .update(table)
    .set({
      failureStreak: streak,
      circuitOpenUntil: sql`CASE WHEN ${streak} >= ${CIRCUIT_AFTER} THEN ${now} + CAST(${openFor} * ${scale} AS INTEGER) ELSE ${table.circuitOpenUntil} END`,
    })
    .where(sql`${table.id} = ${id}`)
    .returning({ openUntil: table.circuitOpenUntil });
}

/** An endpoint's circuit as the dashboard shows it. */
export interface EndpointCircuit {
  id: string;
  url: string;
  failureStreak: number;
  /** When its deliveries are tried again (one, as a probe), while the circuit is open; null when closed. */
  openUntil: number | null;
}

/** The circuits of a form's endpoints, oldest endpoint first (`now` decides which are still open). */
export async function circuitsOf(db: Db, formId: string, now: number): Promise<EndpointCircuit[]> {
  const rows = await db
    .select({ id: webhooks.id, url: webhooks.url, failureStreak: webhooks.failureStreak, openUntil: webhooks.circuitOpenUntil })
    .from(webhooks)
    .where(sql`${webhooks.formId} = ${formId}`)
    .orderBy(webhooks.createdAt, webhooks.id);
  return rows.map((row) => ({ ...row, openUntil: row.openUntil !== null && row.openUntil > now ? row.openUntil : null }));
}

/** The circuits of a form's destinations, oldest first (`url` is the destination's type). */
export async function destinationCircuitsOf(db: Db, formId: string, now: number): Promise<EndpointCircuit[]> {
  const rows = await db
    .select({ id: destinations.id, url: destinations.type, failureStreak: destinations.failureStreak, openUntil: destinations.circuitOpenUntil })
    .from(destinations)
    .where(sql`${destinations.formId} = ${formId}`)
    .orderBy(destinations.createdAt, destinations.id);
  return rows.map((row) => ({ ...row, openUntil: row.openUntil !== null && row.openUntil > now ? row.openUntil : null }));
}

/** How many endpoints and destinations have their circuit open at `now`, for /metrics. */
export async function openCircuits(db: Db, now: number): Promise<number> {
  const [row] = await db
    .select({
      n: sql<number>`(SELECT count(*) FROM ${webhooks} WHERE ${webhooks.circuitOpenUntil} > ${now})
      + (SELECT count(*) FROM ${destinations} WHERE ${destinations.circuitOpenUntil} > ${now})`,
    })
    .from(sql`(SELECT 1)`);
  return Number(row?.n ?? 0);
}
