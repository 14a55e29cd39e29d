// The schema history on PostgreSQL (src/db/migrations-postgres/), applied under a lock: several processes
// started at once on a new database migrate it once; the others wait for the lock and find nothing to do.
import type { SQL as BunSql } from "bun";
import { SchemaBehindError } from "./migrate.ts";
import { postgresMigrations } from "./migrations-postgres/index.ts";
import type { SchemaChange } from "./store.ts";

/** The schema version this build of formsvc writes on PostgreSQL. */
export const POSTGRES_SCHEMA_VERSION = postgresMigrations.length;

// The bookkeeping table drizzle keeps on PostgreSQL, so that its tools see the same history.
const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`;
const LAST_MIGRATION = `SELECT max(created_at)::float8 AS last, count(*)::int AS applied FROM "__drizzle_migrations"`;
// The session lock held while migrating ("formsvc migrate" in ASCII, cut to 63 bits by hashtext's width).
const MIGRATE_LOCK = 0x6d6967726174;

/** The migrations newer than `last`, each split into its statements. */
function pendingAfter(last: number | null) {
  return postgresMigrations
    .filter((m) => m.when > (last ?? -1))
    .map((m) => ({
      ...m,
      hash: new Bun.CryptoHasher("sha256").update(m.sql).digest("hex"),
      statements: m.sql
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter(Boolean),
    }));
}

/**
 * Brings the database up to this build's schema under an advisory lock, or (without `migrate`) refuses one an
 * earlier formsvc left; a new, empty database is always migrated. Refuses one a newer formsvc has migrated.
 */
export async function migratePostgres(pool: BunSql, shown: string, migrate: boolean): Promise<SchemaChange> {
  const connection = await pool.reserve();
  try {
    await connection.unsafe(`SELECT pg_advisory_lock(${MIGRATE_LOCK})`);
    try {
      await connection.unsafe(MIGRATIONS_TABLE);
      const [row] = (await connection.unsafe(LAST_MIGRATION)) as { last: number | null; applied: number }[];
      const { last, applied } = row!;
      const newest = postgresMigrations[postgresMigrations.length - 1]!.when;
      if (applied > POSTGRES_SCHEMA_VERSION || (last !== null && last > newest)) {
        throw new Error(
          `the database ${shown} has schema version ${applied}, newer than this formsvc's ${POSTGRES_SCHEMA_VERSION}: ` +
            "a newer formsvc has upgraded it. Run that version (or newer), or restore a backup taken before the upgrade.",
        );
      }
      const pending = pendingAfter(last);
      if (pending.length === 0) return { from: applied, to: applied };
      if (!migrate && applied > 0)
        throw new SchemaBehindError(
          shown,
          applied,
          pending.map((m) => m.tag),
        );
      await connection.begin(async (tx) => {
        for (const m of pending) {
          for (const statement of m.statements) await tx.unsafe(statement);
          await tx.unsafe(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ($1, $2)`, [m.hash, m.when]);
        }
      });
      return { from: applied, to: applied + pending.length };
    } finally {
      await connection.unsafe(`SELECT pg_advisory_unlock(${MIGRATE_LOCK})`).catch(() => undefined);
    }
  } finally {
    connection.release();
  }
}
