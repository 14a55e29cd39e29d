// The schema's migrations as both drivers run them: drizzle's own bookkeeping table, so that drizzle-kit sees
// the same history, and the refusal of a database a newer formsvc has migrated.
import { Database as SqliteDatabase } from "bun:sqlite";
import { closeSync, existsSync, openSync, rmSync } from "node:fs";
import { migrations } from "./migrations/index.ts";
import type { SchemaChange } from "./store.ts";

/** The schema version this build of formsvc writes. */
export const SCHEMA_VERSION = migrations.length;

export const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`;

/** Migrations newer than the last applied, in drizzle's own bookkeeping format, so drizzle-kit sees the same history. */
export function pendingMigrations(lastApplied: number | null) {
  return migrations
    .filter((m) => m.when > (lastApplied ?? -1))
    .map((m) => ({
      tag: m.tag,
      when: m.when,
      hash: new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"),
      statements: m.sql
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter(Boolean),
    }));
}

export const RECORD_MIGRATION = `INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`;
export const LAST_MIGRATION = `SELECT max(created_at) AS last, count(*) AS applied FROM "__drizzle_migrations"`;
// A row that is written and rolled back at once: proof that the file takes writes, leaving no trace.
export const WRITE_CHECK = `INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('formsvc write check', NULL)`;
export const PING = `SELECT count(*) AS n FROM "__drizzle_migrations"`;

/**
 * Refuses a database that a newer formsvc has migrated: this build would not know its tables and columns,
 * and would drop what it does not know on every write.
 */
export function refuseNewerSchema(location: string, last: number | null, applied: number): void {
  const newest = migrations[migrations.length - 1]!.when;
  if (applied > migrations.length || (last !== null && last > newest)) {
    throw new Error(
      `the database ${location} has schema version ${applied}, newer than this formsvc's ${SCHEMA_VERSION}: ` +
        "a newer formsvc has upgraded it. Run that version (or newer), or restore a backup taken before the upgrade.",
    );
  }
}

/** Brings a SQLite file up to this build's schema, once however many processes open it at the same moment. */
export function migrateSqlite(writer: SqliteDatabase, location: string): SchemaChange {
  writer.exec(MIGRATIONS_TABLE);
  const lastMigration = writer.prepare(LAST_MIGRATION);
  const before = lastMigration.get() as { last: number | null; applied: number };
  refuseNewerSchema(location, before.last, before.applied);
  if (pendingMigrations(before.last).length === 0) return { from: before.applied, to: before.applied };
  // Several processes started at once on a new file all find it behind: each looks again inside the write
  // transaction, so the first migrates and the others, waiting on its lock, find nothing left to do.
  return writer
    .transaction(() => {
      const { last, applied } = lastMigration.get() as { last: number | null; applied: number };
      refuseNewerSchema(location, last, applied);
      const pending = pendingMigrations(last);
      for (const m of pending) {
        for (const statement of m.statements) writer.exec(statement);
        writer.prepare(RECORD_MIGRATION).run(m.hash, m.when);
      }
      // Another process may have migrated it meanwhile: then this open changed nothing.
      return { from: applied, to: applied + pending.length };
    })
    .immediate();
}

/** A database an earlier formsvc left: opened by a command that does not migrate, it is refused unchanged. */
export class SchemaBehindError extends Error {
  constructor(
    location: string,
    readonly applied: number,
    readonly pending: string[],
  ) {
    super(
      `the database ${location} has schema version ${applied}, older than this formsvc's ${SCHEMA_VERSION}, and was left unchanged: ` +
        `run "formsvc migrate --db ${location}" (it backs the file up first; --dry-run lists the ${pending.length} migration(s)), ` +
        'or start "formsvc serve" on it, which backs it up into its folder and then migrates',
    );
  }
}

/** What a SQLite file holds of the schema: migrations applied, and the tags of those this build would run. */
export interface SchemaStatus {
  applied: number;
  pending: string[];
}

/**
 * A connection that reads a SQLite file and leaves its bytes as they are. With a -wal beside it (a server has
 * it open, or crashed), read-only: a last read-write connection would fold the -wal into the file as it
 * closes. Without one, read-write but never written: as it closes it removes the -wal and -shm it made.
 */
export function openForReading(path: string): SqliteDatabase {
  const db = existsSync(`${path}-wal`) ? new SqliteDatabase(path, { readonly: true }) : new SqliteDatabase(path, { readwrite: true, create: false });
  // Another process may be migrating or checkpointing the file at this moment: wait for it, as the writer does.
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

/** Reads a SQLite file's schema version without changing the file, refusing one a newer formsvc has migrated. */
export function sqliteSchemaStatus(path: string): SchemaStatus {
  const probe = openForReading(path);
  try {
    const table = probe.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`).get();
    const { last, applied } = table ? (probe.prepare(LAST_MIGRATION).get() as { last: number | null; applied: number }) : { last: null, applied: 0 };
    refuseNewerSchema(path, last, applied);
    return { applied, pending: pendingMigrations(last).map((m) => m.tag) };
  } finally {
    probe.close();
  }
}

/** Throws SchemaBehindError for a database an earlier formsvc made (a new, empty one is not behind: it is made). */
export function refuseOlderSchema(location: string, status: SchemaStatus): void {
  if (status.applied > 0 && status.pending.length > 0) throw new SchemaBehindError(location, status.applied, status.pending);
}

/**
 * A checked copy of a SQLite file made before migrating it, in the same folder:
 * `formsvc.db.schema-7-2026-11-25T12-15-00Z.bak`, only its owner may read it. Returns its path.
 */
export function backupBeforeMigrating(path: string, applied: number, now = new Date()): string {
  const stamp = now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");
  const target = `${path}.schema-${applied}-${stamp}.bak`;
  const source = openForReading(path);
  try {
    copyInto(source, target);
  } finally {
    source.close();
  }
  return target;
}

/** VACUUM INTO a new private file, then SQLite's integrity check on the copy; a copy that fails it is removed. */
export function copyInto(source: SqliteDatabase, target: string): void {
  // VACUUM INTO fills an empty file: made first, so that the copy is as private as the database.
  closeSync(openSync(target, "wx", 0o600));
  try {
    // Each statement is finalized at once: bun:sqlite's close() leaves a connection with a live statement open
    // until the garbage collector takes it, and an open connection keeps the file in use (restore refuses it).
    const vacuum = source.prepare("VACUUM INTO ?");
    try {
      vacuum.run(target);
    } finally {
      vacuum.finalize();
    }
    const copy = new SqliteDatabase(target, { readonly: true });
    try {
      const check = copy.prepare("PRAGMA integrity_check");
      const rows = check.all() as { integrity_check: string }[];
      check.finalize();
      if (rows.length !== 1 || rows[0]?.integrity_check !== "ok") {
        throw new Error(`the copy at ${target} failed its integrity check: ${rows.map((r) => r.integrity_check).join("; ")}`);
      }
    } finally {
      copy.close();
    }
  } catch (error) {
    rmSync(target, { force: true });
    throw error;
  }
}
