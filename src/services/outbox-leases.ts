import { and, asc, eq, inArray, isNull, lt, lte, or, type Placeholder, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db, Store } from "../db/client.ts";
import { preparedOn } from "../db/prepared.ts";
import { submissions } from "../db/schema.ts";

/** The columns an outbox table (notifications, webhook deliveries) has for its leases. */
export interface OutboxColumns {
  table: SQLiteTable;
  id: SQLiteColumn;
  status: SQLiteColumn;
  nextAttemptAt: SQLiteColumn;
  claimedBy: SQLiteColumn;
  claimedUntil: SQLiteColumn;
  submissionId: SQLiteColumn;
}

/** A submission the owner marked spam after its outbound work was queued is held back (and sent if unmarked). */
const NOT_SPAM = sql`${submissions.isSpam} = 0`;

/**
 * The leases of one outbox, shared by every kind of outbound work. An item is sent by the server process that
 * holds its lease: claiming is one UPDATE … RETURNING in a write transaction, so two processes on one database
 * never hold the same item; a process that dies lets go when its lease ends, and the item is due again.
 * Delivery is so at least once: an item is sent twice only when its holder died (or stalled past its lease)
 * between sending it and recording that it was sent.
 */
export function outboxLeases(store: Store, t: OutboxColumns) {
  // A literal (not a bound parameter), so that SQLite can match it to the table's partial index on due items.
  const pending = sql`${t.status} = 'pending'`;
  // The due items, soonest first: with values for the claim's own subquery, with placeholders for the poll's read.
  const dueIn = (db: Db, now: number | Placeholder, limit: number | Placeholder) =>
    db
      .select({ id: t.id })
      .from(t.table)
      .innerJoin(submissions, eq(submissions.id, t.submissionId))
      .where(and(pending, NOT_SPAM, lte(t.nextAttemptAt, now), or(isNull(t.claimedUntil), lt(t.claimedUntil, now))))
      .orderBy(asc(t.nextAttemptAt), asc(t.id))
      .limit(limit);
  // The reads of the poll, prepared once per connection (see preparedOn): a sender with nothing to do asks
  // again every few seconds, and should not build the same SQL each time.
  const dueRead = preparedOn((db) => dueIn(db, sql.placeholder("now"), sql.placeholder("limit")).prepare());
  const nextDueRead = preparedOn((db) =>
    db
      .select({ at: sql<number>`max(${t.nextAttemptAt}, coalesce(${t.claimedUntil} + 1, 0))` })
      .from(t.table)
      .innerJoin(submissions, eq(submissions.id, t.submissionId))
      .where(and(pending, NOT_SPAM))
      .orderBy(asc(t.nextAttemptAt))
      .limit(1)
      .prepare(),
  );

  return {
    /** The condition on pending items: for the table's own updates. */
    pending,

    /** Claims up to `limit` due items for `worker` until `now + leaseMs`; the ids it now holds, soonest due first. */
    async claim(worker: string, now: number, leaseMs: number, limit: number): Promise<string[]> {
      // A read first: an idle server that polls never takes the writer's lock for nothing.
      if ((await dueRead(store.db).all({ now, limit })).length === 0) return [];
      // One statement: on libSQL one round trip, and two processes never both take an item.
      const [claimed] = (await store.batch((db) => [
        db
          .update(t.table)
          .set({ claimedBy: worker, claimedUntil: now + leaseMs } as never)
          .where(and(inArray(t.id, dueIn(db, now, limit)), pending))
          .returning({ id: t.id, at: t.nextAttemptAt }),
      ])) as [{ id: string; at: number }[]];
      return claimed.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1)).map((row) => row.id);
    },

    /** The condition an update of a sent (or failed) item carries: only its holder records what became of it. */
    heldBy(id: string, worker: string): SQL {
      return and(eq(t.id, id), eq(t.claimedBy, worker), pending)!;
    },

    /** What a record of an attempt sets besides its outcome: the lease is let go. */
    released: { claimedBy: null, claimedUntil: null },

    /** Lets go of every claim of `worker` (at a clean stop), so that another process or a restart sends them at once. */
    async release(worker: string): Promise<void> {
      await store.batch((db) => [
        db
          .update(t.table)
          .set({ claimedBy: null, claimedUntil: null } as never)
          .where(eq(t.claimedBy, worker)),
      ]);
    },

    /** When the next pending item falls due (its lease's end, when another process holds it), or null when none is pending. */
    async nextDueAt(): Promise<number | null> {
      // The soonest by its own time, through the partial index; one held elsewhere is looked at again when its
      // lease ends (and the poll finds any other that fell due meanwhile).
      const [row] = await nextDueRead(store.db).all();
      return row?.at ?? null;
    },
  };
}
