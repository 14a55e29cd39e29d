// Apart from client.ts so that the CLI can tell a file from a URL without loading any database code.

/** True when `location` names a libSQL server or URL rather than a SQLite file. */
export const isLibsqlUrl = (location: string) => /^(libsql|https?|wss?|file):/.test(location);

/** True when `location` names a PostgreSQL database (`postgres://…` or `postgresql://…`). */
export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//.test(location);

/** True when `location` names a database server or URL (libSQL or PostgreSQL), not a SQLite file. */
export const isDatabaseUrl = (location: string) => isLibsqlUrl(location) || isPostgresUrl(location);

/** `location` fit for a log line or an error: a URL's password shown as `***` (docs/scaling.md). */
export function redactedLocation(location: string): string {
  return location.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, "$1***@").replace(/([?&]password=)[^&]*/gi, "$1***");
}
