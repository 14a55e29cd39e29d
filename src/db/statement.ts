// A statement of a write whose values are known before it runs, given with names: its SQL text is made once
// (placeholders for the names) and bound to each write's values. A write decides what it does in plain code and
// hands its statements here as a plan (runPlan); how a statement runs on each engine (prepared once per
// connection on a SQLite file, through drizzle on libSQL) is this module's alone.
import { Database, type Statement } from "bun:sqlite";
import { fillPlaceholders, getTableColumns, sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { submissions } from "./schema.ts";
import type { Db } from "./store.ts";

/** Makes a statement's SQL from its values by name: placeholders to make its text once, the values to run it. */
export type StatementMaker = (value: (name: string) => unknown) => SQL;

/** A statement and the values of this write. `make` is made once (at load), so that its text is made once too. */
export interface Step {
  make: StatementMaker;
  values: Record<string, unknown>;
}

/** SQL text and its arguments, as a driver takes them. */
export interface Bound {
  sql: string;
  args: unknown[];
}

const dialect = new SQLiteSyncDialect();
const texts = new WeakMap<StatementMaker, { sql: string; params: unknown[] }>();

/** A step as text and arguments: the text made at its maker's first use, the arguments filled in from its values. */
export function bound(step: Step): Bound {
  let text = texts.get(step.make);
  if (!text) {
    text = dialect.sqlToQuery(step.make((name) => sql.placeholder(name)));
    texts.set(step.make, text);
  }
  return { sql: text.sql, args: fillPlaceholders(text.params, step.values) };
}

// Statements prepared once per SQLite connection, by their text; bounded, in case texts ever vary.
const preparedTexts = new WeakMap<Database, Map<string, Statement>>();

/** The statement of `text` on a SQLite connection, prepared at its first use there. */
function preparedText(client: Database, text: string): Statement {
  let statements = preparedTexts.get(client);
  if (!statements) {
    statements = new Map();
    preparedTexts.set(client, statements);
  }
  let statement = statements.get(text);
  if (!statement) {
    if (statements.size >= 64) statements.clear();
    statement = client.prepare(text);
    statements.set(text, statement);
  }
  return statement;
}

/**
 * Runs a step in the caller's transaction (or on the store's reader) and gives its rows: on a SQLite file as a
 * statement prepared once per connection; on libSQL (whose transactions are new objects each time) through drizzle.
 */
export async function runStep(tx: Db, step: Step): Promise<unknown[]> {
  const client = (tx as unknown as { $client?: unknown }).$client;
  if (client instanceof Database) {
    const { sql: text, args } = bound(step);
    return preparedText(client, text).all(...(args as never[])) as unknown[];
  }
  return tx.all(step.make((name) => step.values[name]));
}

/** In a statement of a submission's write: true when the submission `submissionId` was written earlier in its transaction. */
export const whenStored = (value: (name: string) => unknown): SQL => sql`EXISTS (SELECT 1 FROM ${submissions} WHERE id = ${value("submissionId")})`;

/** The sizes a multi-row insert is cut into: each one statement text, prepared once per connection. */
const ROW_CHUNKS = [64, 32, 16, 8, 4, 2, 1];
// Per table, the texts by their columns and row count: looked up without asking drizzle anything, since this
// runs for every batch of posts.
const rowInsertTexts = new WeakMap<SQLiteTable, Map<string, string>>();

/** `INSERT INTO table (columns) VALUES (…), (…)` for `count` rows, its text made once. */
function rowInsertText(table: SQLiteTable, keys: string[], count: number): string {
  let texts = rowInsertTexts.get(table);
  if (!texts) {
    texts = new Map();
    rowInsertTexts.set(table, texts);
  }
  const cacheKey = `${keys.join(",")} ${count}`;
  let text = texts.get(cacheKey);
  if (!text) {
    const columns = getTableColumns(table);
    const name = dialect.sqlToQuery(sql`${table}`).sql;
    const names = keys.map((key) => dialect.sqlToQuery(sql`${sql.identifier(columns[key]!.name)}`).sql).join(", ");
    const row = `(${keys.map(() => "?").join(", ")})`;
    text = `INSERT INTO ${name} (${names}) VALUES ${Array.from({ length: count }, () => row).join(", ")}`;
    texts.set(cacheKey, text);
  }
  return text;
}

/**
 * Inserts `rows` (objects keyed by the table's column keys, holding the values as the driver takes them) in the
 * caller's transaction as a few multi-row statements: on a SQLite file, statements of 64, 32, … 1 rows prepared
 * once per connection, so a batch of n rows runs at most log2(n) + 1 of them; on libSQL through drizzle.
 */
export async function insertRows(tx: Db, table: SQLiteTable, rows: Record<string, unknown>[]): Promise<void> {
  if (rows.length === 0) return;
  const keys = Object.keys(rows[0]!);
  const client = (tx as unknown as { $client?: unknown }).$client;
  if (!(client instanceof Database)) {
    await tx.insert(table).values(rows as never);
    return;
  }
  let at = 0;
  for (const size of ROW_CHUNKS) {
    while (rows.length - at >= size) {
      const args: unknown[] = [];
      for (let r = at; r < at + size; r++) {
        const row = rows[r]!;
        for (const key of keys) args.push(row[key] ?? null);
      }
      preparedText(client, rowInsertText(table, keys, size)).run(...(args as never[]));
      at += size;
    }
  }
}

/** Rows for one table, keyed by its column keys (the same keys in every row), holding the values as the driver takes them. */
export interface Rows {
  table: SQLiteTable;
  rows: Record<string, unknown>[];
}

/**
 * A statement plan: what a write does once its decisions are made, as statements with their values and rows to
 * insert, in order. Any engine runs it in its own transaction (runPlan): the plan holds no engine's calls.
 */
export type Plan = (Step | Rows)[];

/** Runs a plan in the caller's transaction, item by item in order; gives each statement's rows (none for inserted rows). */
export async function runPlan(tx: Db, plan: Plan): Promise<unknown[][]> {
  const results: unknown[][] = [];
  for (const item of plan) {
    if ("table" in item) {
      await insertRows(tx, item.table, item.rows);
      results.push([]);
    } else results.push(await runStep(tx, item));
  }
  return results;
}
