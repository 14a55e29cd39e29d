// The database's tables, by concern: what accounts and forms hold, the outbox, the dashboard's people, and payments.
export * from "./schema/people.ts";
export * from "./schema/outbox.ts";
export * from "./schema/tables.ts";
export * from "./schema/payments.ts";
