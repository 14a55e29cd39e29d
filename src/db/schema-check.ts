// The schema a formsvc database must have, read from its own migrations: what `restore` holds a backup to, so
// that a file with a table dropped or a trigger added (which would store every post as `{}`) is refused.
import { Database } from "bun:sqlite";
import { MIGRATIONS_TABLE, pendingMigrations } from "./migrate.ts";

interface SchemaObject {
  type: string;
  name: string;
  /** The table an index or trigger belongs to (a table's is its own name). */
  table: string;
  sql: string;
}

// SQLite's own tables (sqlite_sequence, sqlite_stat1 of ANALYZE) come and go with use, not with the schema.
const OBJECTS =
  "SELECT type, name, tbl_name AS \"table\", coalesce(sql, '') AS sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY type <> 'table', type, name";

const squeezed = (sql: string) => sql.replace(/\s+/g, " ").trim();

function objectsOf(db: Database): Map<string, SchemaObject> {
  const rows = db.prepare(OBJECTS).all() as SchemaObject[];
  return new Map(rows.map((row) => [`${row.type} ${row.name}`, { ...row, sql: squeezed(row.sql) }]));
}

/** The schema objects that the first `applied` migrations make, on an empty database in memory. */
function expectedObjects(applied: number): Map<string, SchemaObject> {
  const db = new Database(":memory:");
  try {
    db.exec(MIGRATIONS_TABLE);
    for (const migration of pendingMigrations(null).slice(0, applied)) for (const statement of migration.statements) db.exec(statement);
    return objectsOf(db);
  } finally {
    db.close();
  }
}

/**
 * How `db`'s schema differs from the one formsvc's first `applied` migrations make, in words (empty when it is
 * the same): a table, index, trigger or view missing, one formsvc does not make, or one made otherwise.
 */
export function schemaDifferences(db: Database, applied: number): string[] {
  const found = objectsOf(db);
  const expected = expectedObjects(applied);
  const differences: string[] = [];
  for (const [key, object] of expected) {
    const there = found.get(key);
    // A missing table takes its indexes and triggers with it: the table is the one thing to say.
    if (!there) {
      if (object.type === "table" || found.has(`table ${object.table}`)) differences.push(`it has no ${object.type} ${object.name}`);
    }
    // The bookkeeping table's text is drizzle's or ours: only its presence matters.
    else if (there.sql !== object.sql && object.name !== "__drizzle_migrations")
      differences.push(`its ${object.type} ${object.name} is not as formsvc makes it`);
  }
  for (const [key, object] of found) if (!expected.has(key)) differences.push(`it has a ${object.type} ${object.name} that formsvc does not make`);
  return differences;
}
