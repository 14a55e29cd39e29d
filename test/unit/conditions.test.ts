import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { type Condition, factsOf, matches, notificationTo, storedRoutes, storedWhen, whenHolds } from "../../src/services/outbox/conditions.ts";

// The rule of conditions is decided twice: in SQL by the statement that queues deliveries, and in code for the
// notification's route. Both must give the same answer for every case; each case says what a user expects.
const CASES: [string, Condition[], Record<string, unknown>, boolean][] = [
  ["equals ignores case and spaces", [{ field: "topic", op: "equals", value: "Sales" }], { topic: "  SALES " }, true],
  ["equals another value", [{ field: "topic", op: "equals", value: "sales" }], { topic: "support" }, false],
  ["equals on a missing field is empty", [{ field: "topic", op: "equals", value: "" }], {}, true],
  ["contains", [{ field: "message", op: "contains", value: "Refund" }], { message: "I want a REFUND now" }, true],
  ["contains, absent", [{ field: "message", op: "contains", value: "refund" }], { message: "hello" }, false],
  ["in, one of them", [{ field: "plan", op: "in", value: ["Pro", "Team"] }], { plan: "team" }, true],
  ["in, none", [{ field: "plan", op: "in", value: ["pro"] }], { plan: "free" }, false],
  ["a list matches when any item does", [{ field: "tags", op: "equals", value: "urgent" }], { tags: ["later", "Urgent"] }, true],
  ["notEmpty: blank is empty", [{ field: "email", op: "notEmpty" }], { email: "   " }, false],
  ["notEmpty: missing", [{ field: "email", op: "notEmpty" }], {}, false],
  ["notEmpty: a number", [{ field: "count", op: "notEmpty" }], { count: 0 }, true],
  ["notEmpty: an empty list", [{ field: "tags", op: "notEmpty" }], { tags: [] }, false],
  [
    "all must hold",
    [
      { field: "a", op: "equals", value: "1" },
      { field: "b", op: "equals", value: "2" },
    ],
    { a: "1", b: "3" },
    false,
  ],
  ["none: every submission", [], { a: "1" }, true],
  ["unicode case", [{ field: "city", op: "equals", value: "ÉCLUSE" }], { city: "écluse" }, true],
  ["a field name with quotes", [{ field: 'say "hi"', op: "equals", value: "x" }], { 'say "hi"': "X" }, true],
];

const db = new Database(":memory:");
const dialect = new SQLiteSyncDialect();
const inSql = (when: Condition[], data: Record<string, unknown>) => {
  const query = dialect.sqlToQuery(sql`SELECT ${whenHolds(sql`${storedWhen(when)}`, sql`${factsOf(data)}`)} AS ok`);
  return (db.query(query.sql).get(...(query.params as never[])) as { ok: number }).ok === 1;
};

for (const [name, when, data, expected] of CASES) {
  test(`${name}: ${expected ? "sent" : "not sent"}, alike in SQL and in code`, () => {
    expect({ sql: inSql(when, data), code: matches(storedWhen(when), data) }).toEqual({ sql: expected, code: expected });
  });
}

test("notificationTo: the first route that matches, else notificationEmail", () => {
  const routes = storedRoutes([
    { to: "sales@example.com", when: [{ field: "topic", op: "equals", value: "sales" }] },
    { to: "any@example.com", when: [] },
  ]);
  expect(notificationTo(routes, "owner@example.com", { topic: "Sales" })).toBe("sales@example.com");
  expect(notificationTo(routes, "owner@example.com", { topic: "other" })).toBe("any@example.com");
  expect(notificationTo(null, "owner@example.com", { topic: "other" })).toBe("owner@example.com");
});
