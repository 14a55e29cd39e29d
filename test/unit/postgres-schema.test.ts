// PostgreSQL's schema history (src/db/migrations-postgres/) kept in step with SQLite's: the same tables and
// columns under the same names, of the same kind; and migrations that run once however many open at once.
import { Database } from "bun:sqlite";
import { SQL } from "bun";
import { afterAll, describe, expect, test } from "bun:test";
import { openStore } from "../../src/db/client.ts";
import { MIGRATIONS_TABLE, pendingMigrations } from "../../src/db/migrate.ts";
import { POSTGRES_SCHEMA_VERSION } from "../../src/db/postgres-migrate.ts";
import { freshPostgres } from "../helpers/postgres.ts";

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

// SQLite's column types and the PostgreSQL types that hold the same values.
const KINDS: Record<string, string> = { integer: "bigint", text: "text", real: "double precision", blob: "bytea" };

/** `table.column kind [not null]` of every column of every table SQLite's migrations make. */
function sqliteColumns(): string[] {
  const db = new Database(":memory:");
  try {
    db.exec(MIGRATIONS_TABLE);
    for (const migration of pendingMigrations(null)) for (const statement of migration.statements) db.exec(statement);
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '__drizzle_migrations'")
      .all() as { name: string }[];
    return tables.flatMap(({ name }) =>
      (
        db.prepare(`SELECT name, lower(type) AS type, "notnull" OR pk AS required FROM pragma_table_info(?)`).all(name) as {
          name: string;
          type: string;
          required: number;
        }[]
      ).map((column) => `${name}.${column.name} ${KINDS[column.type] ?? column.type}${column.required ? " not null" : ""}`),
    );
  } finally {
    db.close();
  }
}

/** The same list, of a PostgreSQL database. */
async function postgresColumns(url: string): Promise<string[]> {
  const sql = new SQL({ url, max: 1 });
  try {
    const rows = (await sql.unsafe(
      `SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '__drizzle_migrations'`,
    )) as { table_name: string; column_name: string; data_type: string; is_nullable: string }[];
    return rows.map((row) => `${row.table_name}.${row.column_name} ${row.data_type}${row.is_nullable === "NO" ? " not null" : ""}`);
  } finally {
    await sql.close();
  }
}

describe("the PostgreSQL schema", () => {
  test("has every table and column of the SQLite schema, of the same kind, and no other", async () => {
    const database = await freshPostgres();
    drops.push(database.drop);
    const expected = sqliteColumns().sort();
    const found = (await postgresColumns(database.url)).sort();
    expect(expected.length).toBeGreaterThan(100);
    expect(found).toEqual(expected);
  });

  test("several stores opening a new database at once migrate it once; the others find nothing to do", async () => {
    const database = await freshPostgres({ empty: true });
    drops.push(database.drop);
    const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(database.url, { migrate: true, pool: 2 })));
    try {
      const changes = stores.map((store) => store.schema);
      expect(changes.filter((change) => change.from === 0)).toEqual([{ from: 0, to: POSTGRES_SCHEMA_VERSION }]);
      expect(changes.filter((change) => change.from === POSTGRES_SCHEMA_VERSION)).toHaveLength(3);
      const sql = new SQL({ url: database.url, max: 1 });
      const [row] = (await sql.unsafe(`SELECT count(*)::int AS n FROM "__drizzle_migrations"`)) as { n: number }[];
      await sql.close();
      expect(row!.n).toBe(POSTGRES_SCHEMA_VERSION);
    } finally {
      for (const store of stores) store.close();
    }
  });

  test("a database that cannot be reached is said without the URL's password", async () => {
    const database = await freshPostgres();
    drops.push(database.drop);
    const wrong = database.url.replace(/:(\d+)\//, ":1/");
    const error = await openStore(wrong, { migrate: true }).catch((caught: unknown) => caught as Error);
    expect(error).toBeInstanceOf(Error);
    expect(`${(error as Error).message} ${(error as Error).stack}`).not.toContain("formsvc-test");
  });
});
