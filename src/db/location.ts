// Apart from client.ts so that the CLI can tell a file from a URL without loading any database code.

/** True when `location` names a libSQL server or URL rather than a SQLite file. */
export const isLibsqlUrl = (location: string) => /^(libsql|https?|wss?|file):/.test(location);
