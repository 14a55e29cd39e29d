import { Database } from "bun:sqlite";
import type { Command } from "commander";
import { existsSync, rmSync, statSync } from "node:fs";
import { localDatabase, sqliteFileOnly } from "./backend.ts";
import { CliError } from "./errors.ts";
import type { Io } from "./io.ts";
import { megabytes, thousands } from "./progress.ts";

/** What a backup holds, read back from the copy itself. */
export interface BackupReport {
  source: string;
  path: string;
  bytes: number;
  forms: number;
  submissions: number;
  integrity: "ok";
}

/** Counts rows in the copy: proof that it opens and holds what was expected. */
function countsOf(path: string): { forms: number; submissions: number } {
  const copy = new Database(path, { readonly: true });
  try {
    const count = (table: string) => (copy.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { forms: count("forms"), submissions: count("submissions") };
  } finally {
    copy.close();
  }
}

/**
 * Writes a consistent copy of the database to `path` while a server may go on writing (VACUUM INTO reads one
 * snapshot), then runs SQLite's integrity check on the copy; a copy that fails it is removed.
 */
export async function runBackup(path: string, globals: { db?: string; url?: string; json?: boolean }, io: Io): Promise<void> {
  const source = localDatabase(globals, io.env, "backup");
  sqliteFileOnly(source, "formsvc backup");
  if (!existsSync(source)) throw new CliError(`no database at ${source}: pass --db PATH or set FORMSVC_DB`);
  if (existsSync(path)) throw new CliError(`${path} exists already: back up to a new file, so that no good copy is overwritten`);
  const { copyInto, openForReading } = await import("../src/db/migrate.ts");
  // A backup never migrates or otherwise changes the database it copies.
  const database = openForReading(source);
  try {
    copyInto(database, path);
  } catch (error) {
    rmSync(path, { force: true });
    throw new CliError(`backup failed: ${(error as Error).message}`);
  } finally {
    database.close();
  }
  const report: BackupReport = { source, path, bytes: statSync(path).size, ...countsOf(path), integrity: "ok" };
  if (globals.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
  if (io.errIsTTY) {
    io.err(
      `Backed up ${source} to ${path}: ${thousands(report.forms)} forms, ${thousands(report.submissions)} submissions, ${megabytes(report.bytes)}; integrity check ok.\n`,
    );
  }
}

export function backupCommand(program: Command, io: Io): void {
  program
    .command("backup <path>")
    .description("write a consistent, checked copy of the database (local mode; safe while the server runs)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc backup /var/backups/formsvc-$(date +%F).db --db /var/lib/formsvc/formsvc.db\n  formsvc backup copy.db --json | jq .submissions\n",
    )
    .action((path: string, _flags, command: Command) => runBackup(path, command.optsWithGlobals(), io));
}
