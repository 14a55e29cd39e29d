// The store on PostgreSQL, through Bun's own client (Bun.SQL, pooled). Loaded only for a postgres:// URL: a
// SQLite file never pays for this module. The services' queries are built by drizzle's SQLite dialect, as on
// the other engines, and run here through drizzle's sqlite-proxy driver: postgres-sql.ts turns each text into
// PostgreSQL's and the rows back into the SQLite drivers' shape (docs/scaling.md, "How the same code runs").
import type { SQL as BunSql } from "bun";
import { drizzle as drizzleProxy } from "drizzle-orm/sqlite-proxy";
import { redactedLocation } from "./location.ts";
import { WRITE_CHECK } from "./migrate.ts";
import { migratePostgres } from "./postgres-migrate.ts";
import { postgresParam, postgresText, sqliteRows } from "./postgres-sql.ts";
import * as schema from "./schema.ts";
import { type Db, DatabaseUnavailable, LOCK_WAIT_MS, type Store } from "./store.ts";

/** One connection's way of running a statement: the pool's (any connection), or a transaction's own. */
type Runner = Pick<BunSql, "unsafe">;

// SQLSTATE classes and codes that mean the database cannot be reached or written at the moment, not that
// the statement is wrong: connection errors (08), shutdown and start-up (57P), a read-only standby (25006),
// resources (53), a serialization failure or deadlock (40001, 40P01), and a lock not granted in time (55P03).
const UNAVAILABLE_STATES = /^(08|57P|53|25006$|40001$|40P01$|55P03$)/;

/** `error` as the services see it: a DatabaseUnavailable when PostgreSQL cannot be reached or written. */
export function translatedError(error: unknown): unknown {
  const { code, errno } = error as { code?: unknown; errno?: unknown };
  const connection = typeof code === "string" && code.startsWith("ERR_POSTGRES_") && code !== "ERR_POSTGRES_SERVER_ERROR";
  const state = typeof errno === "string" && UNAVAILABLE_STATES.test(errno);
  if (connection || state) return new DatabaseUnavailable((error as Error).message, { cause: error });
  return error;
}

/** Runs one statement of drizzle's SQLite dialect on `runner`, giving rows as drizzle's sqlite-proxy takes them. */
async function execute(runner: Runner, sqlite: string, params: unknown[], method: "run" | "all" | "values" | "get") {
  let result: unknown[][] & { columns?: { name: string; type: number }[] };
  try {
    result = await runner.unsafe(postgresText(sqlite), params.map(postgresParam)).values();
  } catch (error) {
    throw translatedError(error);
  }
  const rows = sqliteRows(result, result.columns ?? []);
  return { rows: method === "get" ? rows[0] : rows };
}

/** A drizzle database whose statements run on `runner()`: the pool, or the connection of the transaction at hand. */
function proxyDb(runner: () => Runner): Db {
  return drizzleProxy((text, params, method) => execute(runner(), text, params, method) as never, { schema }) as unknown as Db;
}

/** What drizzle makes of a query to send it in a batch. */
interface BatchPrepared {
  getQuery(): { sql: string; params: unknown[]; method?: "run" | "all" | "values" | "get" };
  mapResult(result: unknown, isFromBatch: boolean): unknown;
}

/** A queue that runs one task at a time, in order. */
function serial() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

// The key of the lock every write transaction takes (pg_advisory_xact_lock): writes are one at a time across
// every process on the database, as on a SQLite file, so the services' read-then-write steps stay exact.
const WRITE_LOCK = 0x666f726d; // "form"

/** Opens a PostgreSQL database (postgres:// or postgresql://), migrating it when it is new or `migrate` is set. */
export async function openPostgres(url: string, options: { migrate: boolean; pool?: number }): Promise<Store> {
  const { SQL } = await import("bun");
  const shown = redactedLocation(url);
  const pool = new SQL({
    url,
    // --db-pool (every command passes it); Bun's own size otherwise.
    ...(options.pool ? { max: options.pool } : {}),
    // Seconds: a database that does not answer is said at once rather than waited on for minutes.
    connectionTimeout: LOCK_WAIT_MS / 1000,
    idleTimeout: 60,
  });
  let schemaChange: Store["schema"];
  try {
    schemaChange = await migratePostgres(pool, shown, options.migrate);
  } catch (error) {
    await pool.close().catch(() => undefined);
    throw translatedError(error);
  }

  const db = proxyDb(() => pool);
  // The write transaction's own connection, reserved from the pool for its length; one write at a time.
  let current: (Runner & { release(): void }) | null = null;
  const txDb = proxyDb(() => {
    if (!current) throw new Error("a write ran outside its transaction");
    return current;
  });
  const queue = serial();

  async function transaction<T>(work: (tx: Db) => Promise<T>): Promise<T> {
    let connection: Runner & { release(): void };
    try {
      connection = await pool.reserve();
    } catch (error) {
      throw translatedError(error);
    }
    current = connection;
    try {
      await execute(connection, "BEGIN", [], "run");
      await execute(connection, `SELECT pg_advisory_xact_lock(${WRITE_LOCK})`, [], "run");
      let result: T;
      try {
        result = await work(txDb);
      } catch (error) {
        await execute(connection, "ROLLBACK", [], "run").catch(() => undefined);
        throw error;
      }
      await execute(connection, "COMMIT", [], "run");
      return result;
    } finally {
      current = null;
      connection.release();
    }
  }

  const write: Store["write"] = (work) => queue(() => transaction(work));
  return {
    driver: "postgres",
    db,
    write,
    // The statements run one after another in one write transaction, each as drizzle would send it in a batch.
    batch: (build) =>
      write(async (tx) => {
        const results: unknown[] = [];
        for (const statement of build(tx)) {
          const prepared = (statement as unknown as { _prepare(): BatchPrepared })._prepare();
          const query = prepared.getQuery();
          results.push(prepared.mapResult(await execute(current!, query.sql, query.params, query.method ?? "all"), true));
        }
        return results;
      }),
    backup: async () => {
      throw new Error("a PostgreSQL database is backed up with pg_dump or the provider's backups, not by formsvc");
    },
    ping: async () => {
      await execute(pool, "SELECT 1", [], "get");
    },
    checkWritable: async () => {
      // A standby (or a primary in read-only mode) refuses a write: the same write check as on SQLite, rolled back.
      let connection: Runner & { release(): void };
      try {
        connection = await pool.reserve();
      } catch (error) {
        throw translatedError(error);
      }
      try {
        await execute(connection, "BEGIN", [], "run");
        try {
          await execute(connection, WRITE_CHECK, [], "run");
        } finally {
          await execute(connection, "ROLLBACK", [], "run").catch(() => undefined);
        }
      } finally {
        connection.release();
      }
    },
    // PostgreSQL reclaims deleted rows' space itself (autovacuum); there is no WAL of formsvc's to truncate.
    checkpoint: async () => false,
    schema: schemaChange,
    close: () => {
      void pool.close();
    },
  };
}
