// The database's tables, by concern: what accounts and forms hold, and the dashboard's people.
export * from "./schema/people.ts";
export * from "./schema/tables.ts";
