// The store on a libSQL database (a libSQL server, or a `file:` URL through @libsql/client). Loaded only for a
// libSQL URL: a SQLite file never pays for this module or the client it loads.
import { LAST_MIGRATION, MIGRATIONS_TABLE, PING, pendingMigrations, RECORD_MIGRATION, refuseNewerSchema, refuseOlderSchema, WRITE_CHECK } from "./migrate.ts";
import * as schema from "./schema.ts";
import { type Db, isBusy, LOCK_WAIT_MS, MAX_BATCH, type Store } from "./store.ts";

/** A queue that runs one task at a time, in order. */
function serial() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(task: () => Promise<T>): Promise<T> => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}

/**
 * Sets WAL mode on a `file:` database. While other processes open a new file at the same moment, SQLite can
 * answer SQLITE_BUSY at once (its busy handler is not called for every lock this takes), so the switch is tried
 * again for up to 5 s, as for a SQLite file.
 */
async function switchToWal(client: import("@libsql/client").Client): Promise<void> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      await client.execute("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      await Bun.sleep(5 + Math.random() * 5);
    }
  }
}

/**
 * Connections of a `file:` database. Only a transaction holds one for long (the writes, one at a time, and the
 * write check), so a few are plenty; each is set up when the store opens, and the pool never opens another.
 */
const FILE_CONNECTIONS = 4;

/**
 * Runs `pragmas` on each of the pool's connections: as many transactions at once as it has connections, so that
 * each takes its own, then rolled back (a deferred transaction that read nothing took no lock).
 */
async function onEveryConnection(client: import("@libsql/client").Client, pragmas: string[]): Promise<void> {
  const held = await Promise.all(Array.from({ length: FILE_CONNECTIONS }, () => client.transaction("deferred")));
  try {
    for (const tx of held) for (const pragma of pragmas) await tx.execute(pragma);
  } finally {
    for (const tx of held) {
      await tx.rollback();
      tx.close();
    }
  }
}

/** Opens a libSQL database, migrating it when it is new or `migrate` is set. */
export async function openLibsql(url: string, authToken: string | undefined, migrate: boolean): Promise<Store> {
  // The libSQL client is loaded only for a libSQL URL: a SQLite file never pays for it.
  const [{ createClient }, { drizzle: drizzleLibsql }] = await Promise.all([import("@libsql/client"), import("drizzle-orm/libsql")]);
  // The client keeps a pool of connections and a PRAGMA reaches only one of them: the busy timeout is given
  // here, so that every connection waits for another process's write rather than fail at once. A `file:`
  // database has a fixed number of connections, each given its settings below before any other use.
  const isFile = url.startsWith("file:");
  const inMemory = /^file::memory:(\?|$)/.test(url);
  const client = createClient({ url, authToken, timeout: LOCK_WAIT_MS, ...(isFile ? { concurrency: FILE_CONNECTIONS } : {}) });
  if (isFile) {
    await switchToWal(client);
    // Every connection syncs the WAL at each commit and enforces foreign keys: both are this libSQL build's
    // defaults, and neither PRAGMA takes effect inside the transactions below, so they are set on the first
    // connection and checked on every one by the tests (test/unit/drivers.test.ts).
    await client.execute("PRAGMA synchronous = FULL");
    // As on a SQLite file: deleted content is zeroed, on every connection (an in-memory database has one).
    // (A libSQL server's own settings and history are its own.)
    if (inMemory) await client.execute("PRAGMA secure_delete = ON");
    else await onEveryConnection(client, ["PRAGMA secure_delete = ON"]);
  }
  await client.execute("PRAGMA foreign_keys = ON");
  await client.execute(MIGRATIONS_TABLE);
  const result = await client.execute(LAST_MIGRATION);
  const last = (result.rows[0]?.last as number | null) ?? null;
  const applied = Number(result.rows[0]?.applied ?? 0);
  try {
    refuseNewerSchema(url, last, applied);
    if (!migrate) refuseOlderSchema(url, { applied, pending: pendingMigrations(last).map((m) => m.tag) });
  } catch (error) {
    client.close();
    throw error;
  }
  let migrated = applied;
  let schemaFrom = applied;
  if (pendingMigrations(last).length > 0) {
    // As for a SQLite file: the check is made again inside the write transaction, so that processes started at
    // once on a new database migrate it once.
    const tx = await client.transaction("write");
    try {
      const again = await tx.execute(LAST_MIGRATION);
      const lastNow = (again.rows[0]?.last as number | null) ?? null;
      refuseNewerSchema(url, lastNow, Number(again.rows[0]?.applied ?? 0));
      const pending = pendingMigrations(lastNow);
      await tx.batch(pending.flatMap((m) => [...m.statements, { sql: RECORD_MIGRATION, args: [m.hash, m.when] }]));
      await tx.commit();
      // Another process may have migrated it meanwhile: then this open changed nothing.
      schemaFrom = Number(again.rows[0]?.applied ?? 0);
      migrated = schemaFrom + pending.length;
    } catch (error) {
      client.close();
      throw error;
    } finally {
      tx.close();
    }
  }
  const db = drizzleLibsql({ client, schema }) as unknown as Db;
  // Every write of this process, a transaction or a batch, waits for the one before: on a `file:` database the
  // client's statements run synchronously, so a write that waited inside SQLite for the lock of this process's
  // own transaction (which awaits between its statements) would stop the event loop, and that transaction with it.
  const queue = serial();
  return {
    db,
    write: (work) => queue(() => db.transaction((tx) => work(tx as unknown as Db), { behavior: "immediate" })),
    batch: batchCommit(client, db, queue),
    backup: async (target) => {
      await client.execute({ sql: "VACUUM INTO ?", args: [target] });
    },
    ping: async () => {
      await client.execute(PING);
    },
    checkWritable: async () => {
      await queue(async () => {
        const tx = await client.transaction("write");
        try {
          await tx.execute(WRITE_CHECK);
        } finally {
          await tx.rollback();
        }
      });
    },
    checkpoint: async () => {
      // A server keeps its WAL (and its replicas and backups) as it is configured to: nothing to ask of it here.
      if (!url.startsWith("file:")) return false;
      const result = await queue(() => client.execute("PRAGMA wal_checkpoint(TRUNCATE)"));
      return Number(result.rows[0]?.busy ?? 1) === 0;
    },
    schema: { from: schemaFrom, to: migrated },
    close: () => client.close(),
  };
}

/** What drizzle makes of a query to send it in a batch (its own libSQL batch does the same, in deferred mode). */
interface PreparedStatement {
  getQuery(): { sql: string; params: unknown[] };
  mapResult(result: unknown, isFromBatch: boolean): unknown;
}

interface BatchTask {
  statements: PreparedStatement[];
  resolve: (results: unknown[]) => void;
  reject: (error: unknown) => void;
}

/**
 * The batch writes of a libSQL database, group-committed: the batches that wait while one is sent go together
 * in the next request, as one write transaction. When a joined request fails, each batch is sent again alone,
 * so that one bad write fails only its own caller.
 */
function batchCommit(client: import("@libsql/client").Client, db: Db, queue: ReturnType<typeof serial>): Store["batch"] {
  const pending: BatchTask[] = [];
  let draining = false;

  async function send(tasks: BatchTask[]): Promise<void> {
    const statements = tasks.flatMap((task) => task.statements);
    const results = await queue(() =>
      client.batch(
        statements.map((statement) => {
          const query = statement.getQuery();
          return { sql: query.sql, args: query.params as never };
        }),
        "write",
      ),
    );
    let at = 0;
    for (const task of tasks) {
      task.resolve(task.statements.map((statement, i) => statement.mapResult(results[at + i], true)));
      at += task.statements.length;
    }
  }

  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const tasks = pending.splice(0, MAX_BATCH);
      try {
        await send(tasks);
      } catch (error) {
        if (tasks.length === 1) tasks[0]!.reject(error);
        else for (const task of tasks) await send([task]).catch(task.reject);
      }
      if (pending.length === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    draining = false;
  }

  return (build) =>
    new Promise<unknown[]>((resolve, reject) => {
      try {
        const statements = build(db).map((item) => (item as unknown as { _prepare(): PreparedStatement })._prepare());
        pending.push({ statements, resolve, reject });
      } catch (error) {
        reject(error);
        return;
      }
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
    });
}
