import { expect, test } from "bun:test";
import { type Condition, factsOf, matches, notificationTo, storedRoutes, storedWhen } from "../../src/services/outbox/conditions.ts";

// The rule of conditions, decided in code for deliveries and the notification's routes alike; each case says
// what a user expects.
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

for (const [name, when, data, expected] of CASES) {
  test(`${name}: ${expected ? "sent" : "not sent"}`, () => {
    expect(matches(storedWhen(when), factsOf(data))).toBe(expected);
  });
}

test("a list of many items is compared once per condition, however many ask", () => {
  const topics = Array.from({ length: 250_000 }, (_, i) => `Topic ${i}`);
  const facts = factsOf({ topic: topics, message: "hello" });
  const wanted = Array.from({ length: 100 }, (_, i) => `nothing ${i}`);
  const stored = storedWhen([{ field: "topic", op: "in", value: wanted }]);
  for (let i = 0; i < 40; i++) expect(matches(stored, facts)).toBe(false);
  expect(facts.decided.size).toBe(1);
  expect(matches(storedWhen([{ field: "topic", op: "in", value: [...wanted, "TOPIC 249999"] }]), facts)).toBe(true);
  expect(matches(storedWhen([{ field: "topic", op: "contains", value: "ic 12345" }]), facts)).toBe(true);
  // Two items are never read as one: "0" ends one topic and "T" starts the next.
  expect(matches(storedWhen([{ field: "topic", op: "contains", value: "0topic" }]), facts)).toBe(false);
  expect(matches(storedWhen([{ field: "topic", op: "contains", value: "0\u0000topic" }]), facts)).toBe(false);
});

test("notificationTo: the first route that matches, else notificationEmail", () => {
  const routes = storedRoutes([
    { to: "sales@example.com", when: [{ field: "topic", op: "equals", value: "sales" }] },
    { to: "any@example.com", when: [] },
  ]);
  expect(notificationTo(routes, "owner@example.com", factsOf({ topic: "Sales" }))).toBe("sales@example.com");
  expect(notificationTo(routes, "owner@example.com", factsOf({ topic: "other" }))).toBe("any@example.com");
  expect(notificationTo(null, "owner@example.com", factsOf({ topic: "other" }))).toBe("owner@example.com");
});
