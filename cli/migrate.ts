import type { Command } from "commander";
import { existsSync } from "node:fs";
import { isDatabaseUrl, redactedLocation } from "../src/db/location.ts";
import { settingFromEnv } from "../src/config.ts";
import { localDatabase } from "./backend.ts";
import { CliError } from "./errors.ts";
import type { Io } from "./io.ts";

/** What `formsvc migrate` did, or would do with --dry-run. */
export interface MigrateReport {
  database: string;
  from: number;
  to: number;
  /** The migrations run (or that would run), in order. */
  migrations: string[];
  /** The copy made first (SQLite files), or null. */
  backup: string | null;
  dryRun: boolean;
}

/**
 * Brings a database an earlier formsvc left up to this build's schema, after a checked copy into its own
 * folder; with --dry-run only says what would run. The only command besides serve that migrates.
 */
export async function runMigrate(options: { dryRun?: boolean }, globals: { db?: string; url?: string; json?: boolean }, io: Io): Promise<void> {
  const database = localDatabase(globals, io.env, "migrate");
  const server = isDatabaseUrl(database);
  if (!server && !existsSync(database)) throw new CliError(`no database at ${database}: pass --db PATH or set FORMSVC_DB`);
  const [{ backupBeforeMigrating, sqliteSchemaStatus, SCHEMA_VERSION }, { openStore }] = await Promise.all([
    import("../src/db/migrate.ts"),
    import("../src/db/client.ts"),
  ]);
  // A database server is asked by opening it; a file is read on a read-only connection, and not touched by a dry run.
  const status = server ? null : sqliteSchemaStatus(database);
  const report: MigrateReport = {
    database: redactedLocation(database),
    from: status?.applied ?? 0,
    to: SCHEMA_VERSION,
    migrations: status?.pending ?? [],
    backup: null,
    dryRun: options.dryRun ?? false,
  };
  if (status && status.pending.length === 0) {
    io.err(`${database} is at schema version ${status.applied}, this formsvc's: nothing to do\n`);
  } else if (options.dryRun) {
    if (server) throw new CliError("--dry-run reads SQLite files only: a database server is migrated by formsvc migrate or serve");
    io.err(`${database} is at schema version ${report.from}; formsvc migrate would back it up into its folder, then run:\n`);
    if (!globals.json) io.out(`${report.migrations.join("\n")}\n`);
  } else {
    if (status) report.backup = backupBeforeMigrating(database, status.applied);
    if (report.backup) io.err(`backed up ${database} to ${report.backup}\n`);
    const store = await openStore(database, { authToken: io.env.FORMSVC_DB_AUTH_TOKEN || undefined, migrate: true, pool: settingFromEnv("dbPool", io.env) });
    store.close();
    report.from = store.schema.from;
    io.err(`${report.database}: schema version ${store.schema.from} → ${store.schema.to}\n`);
  }
  if (globals.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
}

export function migrateCommand(program: Command, io: Io): void {
  program
    .command("migrate")
    .description("bring a database an earlier formsvc left up to this version's schema, after a checked backup into its folder (local mode)")
    .option("--dry-run", "list the migrations that would run, and change nothing")
    .addHelpText("after", "\nExamples:\n  formsvc migrate --db /var/lib/formsvc/formsvc.db --dry-run\n  formsvc migrate --db /var/lib/formsvc/formsvc.db\n")
    .action((flags: { dryRun?: boolean }, command: Command) => runMigrate(flags, command.optsWithGlobals(), io));
}
