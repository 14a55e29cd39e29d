// The schema history on PostgreSQL, kept in step with src/db/migrations/ (test/unit/postgres-schema.test.ts
// fails when a table or column differs). Imported as text, so that the compiled binary carries them.
import m0 from "./0000_init.sql" with { type: "text" };
import m1 from "./0001_sqlite_functions.sql" with { type: "text" };

/** Every PostgreSQL migration in order. */
export const postgresMigrations: { tag: string; when: number; sql: string }[] = [
  { tag: "0000_init", when: 1796169600000, sql: m0 },
  { tag: "0001_sqlite_functions", when: 1796169600001, sql: m1 },
];
