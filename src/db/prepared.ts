import type { Db } from "./client.ts";

/**
 * A statement built once per connection it runs on (prepare once, bind many). On bun:sqlite the reader and
 * the writer's transaction are the same objects for the life of the store, so drizzle's prepared query keeps
 * its compiled statement and no request builds SQL text. libSQL hands out a new transaction object each
 * time; there the statement is built for that transaction, as drizzle would have built it anyway.
 */
export function preparedOn<T>(build: (db: Db) => T): (db: Db) => T {
  const built = new WeakMap<Db, T>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}

/**
 * `parse`, remembered by its input text: the JSON settings of a form (allowed domains, field names) change
 * seldom and are read on every submission. Bounded, so that many forms cannot grow it without limit.
 */
export function memoized<T>(parse: (text: string) => T, size = 1024): (text: string) => T {
  const seen = new Map<string, T>();
  return (text) => {
    let value = seen.get(text);
    if (value === undefined) {
      value = parse(text);
      if (seen.size >= size) seen.delete(seen.keys().next().value!);
      seen.set(text, value);
    }
    return value;
  };
}
