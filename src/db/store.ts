// The open database's shape, shared by the drivers (client.ts for bun:sqlite, libsql.ts, postgres.ts) and the migrations.
import type { Database as SqliteDatabase } from "bun:sqlite";
import type { BatchItem } from "drizzle-orm/batch";
import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import type * as schema from "./schema.ts";

/** A drizzle database of either driver; every query on it is awaited, so code does not care which. */
// biome-ignore lint/suspicious/noExplicitAny: the driver's result kind differs between bun:sqlite (sync) and libSQL (async).
export type Db = BaseSQLiteDatabase<any, any, typeof schema>;

/** The open database: `db` for reads, `write` for every change, serialised through one writer. */
export interface Store {
  /** bun:sqlite on a file, or the libSQL client (a server, or a file: URL); each request of the latter may cross a network. */
  readonly driver: "sqlite" | "libsql" | "postgres";
  readonly db: Db;
  /**
   * Runs `work` in one write transaction (BEGIN IMMEDIATE); writes queue behind each other, never interleave.
   * `small`: the work changes a few pages (one submission), so that its undo record may be kept in memory.
   */
  write<T>(work: (tx: Db) => Promise<T>, options?: { small?: boolean }): Promise<T>;
  /**
   * Runs statements known before any of them runs (none reads what another returns) as one write
   * transaction, and gives each one's result. On a SQLite file it is a write like any other; on libSQL the
   * statements go in one request (`client.batch` in write mode), joined with the batches of the other writes
   * waiting at that moment: one round trip, not the several of an interactive transaction.
   */
  batch(build: (db: Db) => WriteStatement[]): Promise<unknown[]>;
  /**
   * A read-only connection of its own, for one long streaming read (an export) on a SQLite file: a statement
   * left open on the shared reader would hold every other read to the snapshot it started in. Absent for libSQL.
   */
  readonly openReader?: () => SqliteDatabase;
  /**
   * A number that changes whenever a change to the database is committed, by this process or another
   * (SQLite's data_version, read on the reader): what a cache of rows checks to know it is still true. Read
   * once per turn of the event loop: another process's commit shows from the next turn, this process's at once.
   * Absent for libSQL.
   */
  readonly dataVersion?: () => number;
  /** Writes a consistent copy of the database to `path` (VACUUM INTO) and checks it. */
  backup(path: string): Promise<void>;
  /** Reads from the database file: throws when it does not answer. */
  ping(): Promise<void>;
  /** Makes a real write in a transaction and rolls it back: throws when the database cannot be written. */
  checkWritable(): Promise<void>;
  /**
   * Copies the WAL into the database file and truncates the WAL (after an erasure or a purge), so that deleted
   * rows' bytes, zeroed in the file by secure_delete, are left in no -wal either. True when it was done; false
   * when readers kept it from finishing in time (SQLite's own checkpoints then do it), or on a libSQL server.
   */
  checkpoint(): Promise<boolean>;
  /** The schema version (migrations applied) when the database was opened, and after this open migrated it. */
  readonly schema: SchemaChange;
  close(): void;
}

/** A statement of a batch: a drizzle query, not yet run. */
export type WriteStatement = BatchItem<"sqlite">;

/** Schema versions are counts of applied migrations: `from` before this open, `to` after it. */
export interface SchemaChange {
  from: number;
  to: number;
}

/** How long a write waits for the lock another process holds before it fails (as busy_timeout did). */
export const LOCK_WAIT_MS = 5_000;

/** Whether SQLite (through either driver) said that another connection holds the lock. */
export const isBusy = (error: unknown) => (error as { code?: string }).code?.startsWith("SQLITE_BUSY") ?? false;

/** Most writes one commit takes (a SQLite transaction, or one libSQL request). */
export const MAX_BATCH = 256;

/** The database cannot be reached or written at the moment (a server restarting, failing over, or read-only). */
export class DatabaseUnavailable extends Error {
  readonly code = "DATABASE_UNAVAILABLE";
}
