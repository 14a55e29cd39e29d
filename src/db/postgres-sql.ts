// SQL text made by drizzle's SQLite dialect, as PostgreSQL reads it, and PostgreSQL's rows as the SQLite
// drivers give them. The services build every query once, through the SQLite dialect; on PostgreSQL this
// module turns its text into PostgreSQL's (placeholders, the few SQLite-only words) and its results back
// into what bun:sqlite would have given (numbers for integers, 1/0 for truth values). The SQLite functions
// the queries call are defined on PostgreSQL by src/db/migrations-postgres/0001_sqlite_functions.sql.

import { getTableColumns, getTableName, is } from "drizzle-orm";
import { SQLiteTable } from "drizzle-orm/sqlite-core";
import * as schema from "./schema.ts";

/** Rewrites of SQLite-only words, applied outside quoted text: each keeps the statement's meaning. */
const REWRITES: [RegExp, string][] = [
  // SQLite's row id, as PostgreSQL's row address: used only to pick rows to delete in small batches.
  [/\browid\b/gi, "ctid"],
];

const texts = new Map<string, string>();

// Each table's column names, by the table's name.
const COLUMNS = new Map(
  (Object.values(schema) as unknown[])
    .filter((value): value is SQLiteTable => is(value, SQLiteTable))
    .map((table) => [getTableName(table), new Set(Object.values(getTableColumns(table)).map((column) => column.name))]),
);

/**
 * An upsert's `do update set` names the target table's columns bare, as SQLite reads them; PostgreSQL finds a
 * bare name there ambiguous (the table's row, or `excluded`), so each one read there is named with its table.
 */
function qualifiedUpsert(text: string): string {
  const target = /^insert into ("?)(\w+)\1/i.exec(text);
  const at = text.search(/ on conflict [\s\S]* do update set /i);
  const columns = target && COLUMNS.get(target[2]!);
  if (!columns || at < 0) return text;
  const setAt = text.search(/ do update set /i) + " do update set ".length;
  const tail = text.slice(setAt).replace(/(?<![.\w"])("?)([A-Za-z_]\w*)\1(?![\w."(])/g, (whole, _quote, name: string, offset: number, all: string) => {
    if (!columns.has(name)) return whole;
    const assigned = /(^|,)\s*$/.test(all.slice(0, offset)) && /^\s*=/.test(all.slice(offset + whole.length));
    return assigned ? whole : `"${target[2]}"."${name}"`;
  });
  return text.slice(0, setAt) + tail;
}

/** The PostgreSQL text of a SQLite statement: `?` as `$1`, `$2`, …, and the rewrites above; made once per text. */
export function postgresText(sqlite: string): string {
  let text = texts.get(sqlite);
  if (text !== undefined) return text;
  // Split into quoted parts (strings, identifiers), left as they are, and the rest, rewritten.
  let n = 0;
  text = qualifiedUpsert(sqlite)
    // SQLite's CAST to INTEGER takes the number a text starts with (0 for none), 64 bits wide.
    .replace(/\bCAST\(([^()]*) AS INTEGER\)/gi, "sqlite_integer(($1)::text)")
    // Of an expression (a number): 64 bits wide, as SQLite's INTEGER.
    .replace(/\bAS INTEGER\)/gi, "AS BIGINT)")
    // A hint to SQLite's planner: PostgreSQL plans without it.
    .replace(/\s+INDEXED BY\s+"?\w+"?/gi, "")
    // An upsert's target names its columns with their table; PostgreSQL takes bare names there.
    .replace(/( on conflict \()([^)]*)\)/gi, (_, head: string, names: string) => `${head}${names.replace(/"\w+"\./g, "")})`)
    .split(/('(?:[^']|'')*'|"(?:[^"]|"")*")/)
    .map((part, i) => {
      if (i % 2 === 1) return part;
      let out = part.replace(/\?/g, () => `$${++n}`);
      for (const [pattern, replacement] of REWRITES) out = out.replace(pattern, replacement);
      return out;
    })
    .join("");
  if (texts.size >= 4096) texts.clear();
  texts.set(sqlite, text);
  return text;
}

/** A value as PostgreSQL takes it: truth values as 1/0, as the SQLite drivers store them. */
export function postgresParam(value: unknown): unknown {
  if (typeof value === "boolean") return value ? 1 : 0;
  if (typeof value === "bigint") return Number(value);
  return value;
}

// PostgreSQL's type numbers (pg_type.oid) of the values to turn back: int8, numeric, bool, bytea.
const INT8 = 20;
const NUMERIC = 1700;
const BOOL = 16;
const BYTEA = 17;

/** One column's value as bun:sqlite gives it: a number for int8 and numeric, 1/0 for a truth value. */
function sqliteValue(type: number, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === INT8 || type === NUMERIC) return Number(value);
  if (type === BOOL) return value ? 1 : 0;
  if (type === BYTEA && !Buffer.isBuffer(value)) return Buffer.from(value as Uint8Array);
  return value;
}

/** A result row: the values by position (as drizzle maps selected fields) and by name (as raw queries read them). */
export type Row = Record<string, unknown>;

/**
 * Rows of `.values()` as the SQLite drivers give them: each an object with the columns by name (enumerable, as
 * libSQL's rows) and by position (not enumerable, for drizzle's mapping of selected fields).
 */
export function sqliteRows(values: unknown[][], columns: { name: string; type: number }[]): Row[] {
  return values.map((raw) => {
    const row: Row = {};
    for (let i = 0; i < columns.length; i++) {
      const value = sqliteValue(columns[i]!.type, raw[i]);
      Object.defineProperty(row, i, { value, enumerable: false });
      row[columns[i]!.name] = value;
    }
    Object.defineProperty(row, "length", { value: columns.length, enumerable: false });
    return row;
  });
}
