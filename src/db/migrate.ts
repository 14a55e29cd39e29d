// The schema's migrations as both drivers run them: drizzle's own bookkeeping table, so that drizzle-kit sees
// the same history, and the refusal of a database a newer formsvc has migrated.
import type { Database as SqliteDatabase } from "bun:sqlite";
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
