// The database's tables, by concern: what accounts and forms hold, the outbox, and the dashboard's people.
export * from "./schema/people.ts";
export * from "./schema/outbox.ts";
export * from "./schema/tables.ts";
