import { and, asc, eq, isNull, lt, lte, or, type Placeholder, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db, Store } from "../../db/client.ts";
import { preparedOn } from "../../db/prepared.ts";
import { forms, submissions } from "../../db/schema.ts";

/** The columns an outbox table (notifications, webhook deliveries) has for its leases. */
export interface OutboxColumns {
  table: SQLiteTable;
  id: SQLiteColumn;
  status: SQLiteColumn;
  nextAttemptAt: SQLiteColumn;
  claimedBy: SQLiteColumn;
  claimedUntil: SQLiteColumn;
  submissionId: SQLiteColumn;
  formId: SQLiteColumn;
}

/**
 * How the items of an outbox share a sender: each key (an endpoint, an account) may have at most `limit` items
 * held by one server process (sent, or waiting there for the key's turn), so that one slow or dead receiver (or
 * one busy account) holds only its own items and never crowds out the others' claims. `join` adds tables beside the item and its form; `open` is a condition on
 * them that holds while the item may be tried (an endpoint's circuit that is not open).
 */
export interface FairShare {
  keys: { key: SQL; limit: number }[];
  join?: SQL;
  open?: (now: number) => SQL;
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
export function outboxLeases(store: Store, t: OutboxColumns, share: FairShare) {
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

  // The due items to claim now, at most `limit`, soonest first, keeping every key within its limit; the ones a
  // key cannot take (this process holds its limit) wait for the items it holds. One key
  // at a time, so that the items an endpoint cannot take do not count against its account.
  const fairDue = (worker: string, now: number, limit: number): SQL => {
    const join = sql`INNER JOIN ${forms} ON ${forms.id} = ${t.formId} ${share.join ?? sql``}`;
    const keyColumns = sql.join(
      share.keys.map(({ key }, i) => sql`${key} AS ${sql.raw(`k${i}`)}`),
      sql`, `,
    );
    const steps = [
      sql`due AS (SELECT ${t.id} AS id, ${t.nextAttemptAt} AS at, ${keyColumns} FROM ${t.table}
        INNER JOIN ${submissions} ON ${submissions.id} = ${t.submissionId} ${join}
        WHERE ${pending} AND ${NOT_SPAM} AND ${t.nextAttemptAt} <= ${now}
          AND (${t.claimedUntil} IS NULL OR ${t.claimedUntil} < ${now}) ${share.open ? sql`AND ${share.open(now)}` : sql``})`,
      sql`held AS (SELECT ${keyColumns} FROM ${t.table} ${join} WHERE ${pending} AND ${t.claimedBy} = ${worker} AND ${t.claimedUntil} >= ${now})`,
    ];
    let from = "due";
    share.keys.forEach(({ limit: keyLimit }, i) => {
      const [k, ranked, heldOf, fair] = [`k${i}`, `ranked${i}`, `held${i}`, `fair${i}`].map((name) => sql.raw(name));
      const columns = sql.raw(share.keys.map((_, j) => `ranked${i}.k${j}`).join(", "));
      // Counted once per key (a join, not a subquery per row: that would read the held items once per due item).
      steps.push(
        sql`${heldOf} AS (SELECT ${k} AS key, count(*) AS n FROM held GROUP BY ${k})`,
        sql`${ranked} AS (SELECT *, row_number() OVER (PARTITION BY ${k} ORDER BY at, id) AS r FROM ${sql.raw(from)})`,
        sql`${fair} AS (SELECT ${columns}, ${ranked}.id, ${ranked}.at FROM ${ranked} LEFT JOIN ${heldOf} ON ${heldOf}.key = ${ranked}.${k}
          WHERE ${ranked}.r + coalesce(${heldOf}.n, 0) <= ${keyLimit})`,
      );
      from = `fair${i}`;
    });
    return sql`WITH ${sql.join(steps, sql`, `)} SELECT id FROM ${sql.raw(from)} ORDER BY at, id LIMIT ${limit}`;
  };

  return {
    /** The condition on pending items: for the table's own updates. */
    pending,

    /**
     * Claims up to `limit` due items for `worker` until `now + leaseMs`, sharing them fairly (see FairShare);
     * the ids it now holds, soonest due first.
     */
    async claim(worker: string, now: number, leaseMs: number, limit: number): Promise<string[]> {
      // Reads first: an idle server that polls, or one whose due items all wait on their keys, never takes the
      // writer's lock for nothing.
      if ((await dueRead(store.db).all({ now, limit: 1 })).length === 0) return [];
      if ((await store.db.all(fairDue(worker, now, 1))).length === 0) return [];
      // One statement: on libSQL one round trip, and two processes never both take an item (nor overfill a key).
      const [claimed] = (await store.batch((db) => [
        db
          .update(t.table)
          .set({ claimedBy: worker, claimedUntil: now + leaseMs } as never)
          .where(and(sql`${t.id} IN (${fairDue(worker, now, limit)})`, pending))
          .returning({ id: t.id, at: t.nextAttemptAt }),
      ])) as [{ id: string; at: number }[]];
      return claimed.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : 1)).map((row) => row.id);
    },

    /** Lets go of one item `worker` holds, without an attempt: it is due again at once (for any process). */
    async letGo(id: string, worker: string): Promise<void> {
      await store.batch((db) => [
        db
          .update(t.table)
          .set({ claimedBy: null, claimedUntil: null } as never)
          .where(and(eq(t.id, id), eq(t.claimedBy, worker), pending)),
      ]);
    },

    /** Extends every lease `worker` holds to `now + leaseMs`: an item being sent is never let go while its sender lives. */
    async extend(worker: string, now: number, leaseMs: number): Promise<void> {
      await store.batch((db) => [
        db
          .update(t.table)
          .set({ claimedUntil: now + leaseMs } as never)
          .where(and(eq(t.claimedBy, worker), pending)),
      ]);
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
