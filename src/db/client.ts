import { AsyncLocalStorage } from "node:async_hooks";
import { Database as SqliteDatabase, type Statement } from "bun:sqlite";
import { closeSync, existsSync, openSync } from "node:fs";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { copyInto, migrateSqlite, PING, refuseOlderSchema, sqliteSchemaStatus, WRITE_CHECK } from "./migrate.ts";
import { isLibsqlUrl, isPostgresUrl } from "./location.ts";
import * as schema from "./schema.ts";
import { type Db, isBusy, LOCK_WAIT_MS, MAX_BATCH, type SchemaChange, type Store, type WriteStatement } from "./store.ts";

export type { Db, SchemaChange, Store, WriteStatement };

/** Makes `path` as an empty file only its owner may read and write: it will hold submissions and key hashes. */
function createPrivateFile(path: string, flags: "a" | "wx"): void {
  closeSync(openSync(path, flags, 0o600));
}

function openSqlite(path: string, migrate: boolean): Store {
  // SQLite gives its -wal and -shm files the database file's permissions, so this covers all three.
  if (path !== ":memory:" && !existsSync(path)) createPrivateFile(path, "a");
  // Checked on a read-only connection before the writer opens: a refused file is left byte for byte as it was.
  if (!migrate && path !== ":memory:") refuseOlderSchema(path, sqliteSchemaStatus(path));
  const writer = new SqliteDatabase(path, { create: true, strict: true });
  // WAL lets readers go on while one writer writes. synchronous=FULL syncs the WAL at every commit, so a
  // submission that was answered 200/303 survives a crash of the process and of the machine.
  // busy_timeout first: switching to WAL waits for another process's checkpoint rather than failing at once.
  writer.exec("PRAGMA busy_timeout = 5000");
  switchToWal(writer);
  writer.exec("PRAGMA synchronous = FULL");
  writer.exec("PRAGMA foreign_keys = ON");
  // Deleted content is overwritten with zeros, not left in free space: an erasure leaves nothing to `strings`.
  writer.exec("PRAGMA secure_delete = ON");
  let schemaChange: SchemaChange;
  try {
    schemaChange = migrateSqlite(writer, path);
  } catch (error) {
    writer.close();
    throw error;
  }

  // From here the writer never sleeps inside SQLite for the lock another process holds: that sleep would stop
  // this process's event loop (bun:sqlite is synchronous). It waits in beginWrite, between turns of the loop.
  writer.exec("PRAGMA busy_timeout = 0");
  const reader = new SqliteDatabase(path, { readonly: true, strict: true });
  reader.exec("PRAGMA busy_timeout = 5000");
  const dataVersion = reader.prepare("PRAGMA data_version");
  const db = drizzleSqlite({ client: reader, schema }) as unknown as Db;
  const writeDb = drizzleSqlite({ client: writer, schema }) as unknown as Db;
  const beginWrite = lockWaiter(writer.prepare("BEGIN IMMEDIATE"));
  // The version is asked once per turn of the event loop: the posts read in one turn (a burst of them) share one
  // answer. Another process's commit is seen from the next turn on; this process's own, at once.
  let version: number | undefined;
  const write = groupCommit(writer, writeDb, beginWrite, () => {
    version = undefined;
  });
  return {
    driver: "sqlite",
    db,
    write,
    batch: (build) =>
      write(async (tx) => {
        const results: unknown[] = [];
        for (const statement of build(tx)) results.push(await statement);
        return results;
      }),
    dataVersion: () => {
      if (version === undefined) {
        version = (dataVersion.get() as { data_version: number }).data_version;
        setImmediate(() => {
          version = undefined;
        });
      }
      return version;
    },
    openReader: () => {
      const own = new SqliteDatabase(path, { readonly: true, strict: true });
      own.exec("PRAGMA busy_timeout = 5000");
      return own;
    },
    backup: async (target) => copyInto(writer, target),
    ping: async () => {
      reader.prepare(PING).get();
    },
    checkWritable: async () => {
      await beginWrite.begin();
      try {
        writer.exec(WRITE_CHECK);
      } finally {
        writer.exec("ROLLBACK");
      }
    },
    checkpoint: () => truncateWal(path),
    schema: schemaChange,
    close: () => {
      reader.close();
      writer.close();
    },
  };
}

/** How long a checkpoint waits for readers (an export's snapshot, another process) to let go of the WAL. */
const CHECKPOINT_WAIT_MS = 5_000;

/**
 * A TRUNCATE checkpoint on a connection of its own (the writer may be inside a transaction of a write that awaits),
 * retried between turns of the event loop while the lock or a reader keeps it from finishing.
 */
async function truncateWal(path: string): Promise<boolean> {
  if (path === ":memory:") return true;
  const own = new SqliteDatabase(path, { strict: true });
  try {
    const checkpoint = own.prepare("PRAGMA wal_checkpoint(TRUNCATE)");
    const deadline = Date.now() + CHECKPOINT_WAIT_MS;
    for (;;) {
      try {
        if ((checkpoint.get() as { busy: number }).busy === 0) return true;
      } catch (error) {
        if (!isBusy(error)) throw error;
      }
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 10));
    }
  } finally {
    own.close();
  }
}

interface WriteTask {
  work: (tx: Db) => Promise<unknown>;
  small: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** How long ago a wait for the lock counts as other writers being about: see groupCommit. */
const CONTENDED_MS = 1_000;

/**
 * BEGIN IMMEDIATE that waits for another process's write without blocking: it tries, and on SQLITE_BUSY lets
 * the event loop run for a millisecond or two (requests keep arriving and join the next batch) and tries again.
 * `contendedAt` is when it last had to wait.
 */
function lockWaiter(begin: Statement) {
  const state = {
    contendedAt: -Infinity,
    async begin(): Promise<void> {
      const deadline = Date.now() + LOCK_WAIT_MS;
      for (;;) {
        try {
          begin.run();
          return;
        } catch (error) {
          if (!isBusy(error) || Date.now() > deadline) throw error;
          state.contendedAt = Date.now();
          // A little randomness, so that processes that wait do not all try again in step.
          await new Promise((resolve) => setTimeout(resolve, 1 + Math.random()));
        }
      }
    },
  };
  return state;
}

/**
 * The writer of a SQLite file, with group commit: writes that queue up while one transaction commits run
 * together in the next, each in a savepoint of its own, so one fsync makes a whole batch durable. A write's
 * promise settles only after its COMMIT; a write that throws rolls back to its savepoint and leaves the
 * others of its batch alone.
 */
function groupCommit(writer: SqliteDatabase, writeDb: Db, lock: ReturnType<typeof lockWaiter>, committed: () => void): Store["write"] {
  const pending: WriteTask[] = [];
  let draining = false;

  // Prepared once: exec() would compile each of these again for every write.
  const [savepoint, release, rollbackTo, commit] = ["SAVEPOINT write_task", "RELEASE write_task", "ROLLBACK TO write_task", "COMMIT"].map((text) =>
    writer.prepare(text),
  ) as [Statement, Statement, Statement, Statement];

  // Each write runs in a savepoint, whose undo record (the pages it changes, as they were) SQLite keeps in a
  // temporary file once it outgrows a small buffer: for a batch of submissions, that file's writes cost more
  // than their inserts. SQLite decides where the transaction's undo records go at BEGIN, and where a sort spills
  // when the sort starts; so a batch of small writes begins with temporary storage in memory and sets it back at
  // once, which keeps the records of those few pages in memory and leaves every sort (a field list rebuilt from
  // a big form) spilling to disk as before. A batch with any other write keeps them on disk.
  async function begin(small: boolean): Promise<void> {
    if (!small) return lock.begin();
    writer.exec("PRAGMA temp_store = MEMORY");
    try {
      await lock.begin();
    } finally {
      writer.exec("PRAGMA temp_store = DEFAULT");
    }
  }

  async function drain(): Promise<void> {
    while (pending.length > 0) {
      const batch = pending.splice(0, MAX_BATCH);
      const outcomes: { ok: boolean; value: unknown }[] = [];
      try {
        await begin(batch.every((task) => task.small));
        for (const task of batch) {
          savepoint.run();
          try {
            const value = await task.work(writeDb);
            release.run();
            outcomes.push({ ok: true, value });
          } catch (error) {
            rollbackTo.run();
            release.run();
            outcomes.push({ ok: false, value: error });
          }
        }
        commit.run();
        committed();
      } catch (error) {
        if (writer.inTransaction) writer.exec("ROLLBACK");
        for (const task of batch) task.reject(error);
        continue;
      }
      batch.forEach((task, i) => {
        if (outcomes[i]!.ok) task.resolve(outcomes[i]!.value);
        else task.reject(outcomes[i]!.value);
      });
      // Let the requests that arrived during the commit queue their writes, so that the next batch takes them all.
      if (pending.length === 0) await new Promise((resolve) => setImmediate(resolve));
      // With other processes writing too, leave the lock free for a moment: taken again at once, it would go to
      // this process batch after batch while the others wait out their retries.
      else if (Date.now() - lock.contendedAt < CONTENDED_MS) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    draining = false;
  }

  return <T>(work: (tx: Db) => Promise<T>, options?: { small?: boolean }) =>
    new Promise<T>((resolve, reject) => {
      // A batch runs in the turn of whichever write started it: each write runs in the context of its own
      // request again, so that what it reads of its request (the public address a link is made of) is its own.
      const inOwnContext = AsyncLocalStorage.snapshot();
      pending.push({
        work: (tx) => inOwnContext(() => work(tx)),
        small: options?.small === true,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      // The batch starts after the requests already read in this turn of the event loop have queued their
      // writes: under load a batch takes all of them, and one fsync makes them durable together.
      if (!draining) {
        draining = true;
        setImmediate(drain);
      }
    });
}

/**
 * Sets WAL mode. While other processes open a new file at the same moment, SQLite can answer SQLITE_BUSY at
 * once (its busy handler is not called for every lock this takes), so the switch is tried again for up to 5 s.
 */
function switchToWal(writer: SqliteDatabase): void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      writer.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!isBusy(error) || Date.now() > deadline) throw error;
      Bun.sleepSync(5 + Math.random() * 5);
    }
  }
}

/**
 * Opens the database: a SQLite file path, a libSQL URL (`libsql://…`, `http://…`, `file:…`), or a PostgreSQL
 * URL (`postgres://…`, at most `pool` connections). A new database
 * is made; one an earlier formsvc left is migrated only with `migrate` (serve, formsvc migrate), else refused
 * with SchemaBehindError and left unchanged.
 */
export async function openStore(location: string, options: { authToken?: string; migrate?: boolean; pool?: number } = {}): Promise<Store> {
  const migrate = options.migrate ?? false;
  // PostgreSQL's client code is loaded only for a postgres:// URL, as libSQL's for a libSQL one.
  if (isPostgresUrl(location)) return (await import("./postgres.ts")).openPostgres(location, { migrate, pool: options.pool });
  return isLibsqlUrl(location) ? (await import("./libsql.ts")).openLibsql(location, options.authToken, migrate) : openSqlite(location, migrate);
}
