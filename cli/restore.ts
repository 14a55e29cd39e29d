import { Database } from "bun:sqlite";
import type { Command } from "commander";
import { chmodSync, chownSync, closeSync, copyFileSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { migrations } from "../src/db/migrations/index.ts";
import { localDatabase, sqliteFileOnly } from "./backend.ts";
import { CliError, EXIT } from "./errors.ts";
import type { Io } from "./io.ts";
import { megabytes, thousands } from "./progress.ts";

/** What a restore did, read back from the restored file. */
export interface RestoreReport {
  backup: string;
  database: string;
  /** Where the database that was replaced is kept, or null when there was none. */
  replaced: string | null;
  bytes: number;
  schema: number;
  forms: number;
  submissions: number;
  /** The bytes of the backup's -wal folded into the restored file (a copy taken while a server ran), or 0. */
  walFolded: number;
  integrity: "ok";
}

// The tables every formsvc database has had since its first schema.
/** The schema version this formsvc writes: the number of its migrations (as src/db/client.ts counts it). */
const SCHEMA_VERSION = migrations.length;

const FORMSVC_TABLES = ["__drizzle_migrations", "accounts", "api_keys", "forms", "submissions"];

/**
 * Checks that `path` (the copy of the backup `label`) is a whole formsvc database this formsvc can serve:
 * SQLite's integrity check passes, its schema is not newer than this build's and is, object for object, the
 * one formsvc's migrations make. Returns what it holds.
 */
async function checkBackup(path: string, label: string): Promise<{ schema: number; forms: number; submissions: number }> {
  // Loaded by restore alone: every other command starts without the schema's code.
  const { schemaDifferences } = await import("../src/db/schema-check.ts");
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (error) {
    throw new CliError(`${label} cannot be opened as a database: ${(error as Error).message}`);
  }
  try {
    let rows: { integrity_check: string }[];
    try {
      rows = db.prepare("PRAGMA integrity_check").all() as { integrity_check: string }[];
    } catch (error) {
      throw new CliError(`${label} is not a usable SQLite database: ${(error as Error).message}`);
    }
    if (rows.length !== 1 || rows[0]?.integrity_check !== "ok") {
      throw new CliError(
        `${label} fails SQLite's integrity check (${rows
          .slice(0, 3)
          .map((r) => r.integrity_check)
          .join("; ")}): pick another backup`,
      );
    }
    const tables = new Set((db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name));
    const missing = FORMSVC_TABLES.filter((t) => !tables.has(t));
    if (missing.length > 0) throw new CliError(`${label} is not a formsvc database (it has no ${missing.join(", ")} table)`);
    const { applied, last } = db.prepare(`SELECT count(*) AS applied, max(created_at) AS last FROM "__drizzle_migrations"`).get() as {
      applied: number;
      last: number | null;
    };
    if (applied > SCHEMA_VERSION || (last !== null && last > migrations[migrations.length - 1]!.when)) {
      throw new CliError(
        `${label} has schema version ${applied}, newer than this formsvc's ${SCHEMA_VERSION}: restore it with the formsvc that wrote it, or a newer one`,
      );
    }
    const differences = schemaDifferences(db, applied);
    if (differences.length > 0) {
      throw new CliError(`${label} is not a database as formsvc makes it (${differences.slice(0, 5).join("; ")}): restore another backup`);
    }
    const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
    return { schema: applied, forms: count("forms"), submissions: count("submissions") };
  } finally {
    db.close();
  }
}

/**
 * Takes the database out of use before it is replaced: turning WAL off needs every other connection gone
 * (SQLite's own locking), so a running server, or any formsvc command on the file, makes it fail at once.
 * It also folds the -wal into the file and removes the -wal and -shm, so the file kept aside is whole.
 * Returns false when the current file cannot be opened at all (a damaged database, the reason to restore).
 */
function takeOutOfUse(database: string): boolean {
  let db: Database;
  try {
    db = new Database(database);
  } catch {
    return false;
  }
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.prepare("PRAGMA journal_mode = DELETE").get();
    return true;
  } catch (error) {
    const code = (error as { code?: string }).code ?? "";
    if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
      throw new CliError(`${database} is in use by a running server (or another formsvc command): stop it first (systemctl stop formsvc), then restore`);
    }
    return false;
  } finally {
    db.close();
  }
}

/**
 * Copies `backup` to `incoming`, with the -wal beside it when there is one (a crash-consistent snapshot of a
 * running server: without it, the commits still in the WAL would be lost), folded into the copy so that
 * the restored file is whole by itself. The backup and its -wal are only read. Returns the -wal's size, or 0.
 */
function copyFolded(backup: string, incoming: string): number {
  copyFileSync(backup, incoming);
  chmodSync(incoming, 0o600);
  const wal = `${backup}-wal`;
  const walBytes = existsSync(wal) ? statSync(wal).size : 0;
  if (walBytes === 0) return 0;
  copyFileSync(wal, `${incoming}-wal`);
  chmodSync(`${incoming}-wal`, 0o600);
  try {
    const db = new Database(incoming);
    try {
      // SQLite's recovery reads every whole commit of the WAL (a half-written last one is left out, as after a crash).
      db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").get();
      db.prepare("PRAGMA journal_mode = DELETE").get();
    } finally {
      db.close();
    }
  } catch (error) {
    throw new CliError(
      `${wal} cannot be folded into ${backup} (${(error as Error).message}): restore another backup, or move the -wal away to restore the file alone`,
    );
  }
  if (existsSync(`${incoming}-wal`)) throw new CliError(`${wal} could not be folded into ${backup}: restore another backup`);
  return walBytes;
}

/** Makes renames in `dir` durable: a crash after restore must not bring the old file back. */
function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

const stamp = () =>
  new Date()
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z");

/**
 * Replaces the database with a checked copy of `backup`. The backup is copied beside the database first and
 * checked there; the database in use is refused; the old file (with its -wal and -shm, if SQLite could not fold
 * them in) is renamed aside, never deleted; then the copy is renamed into place. No -wal or -shm of the old
 * file is ever left beside the restored one, where SQLite would apply it to the wrong file.
 */
export async function runRestore(
  backup: string,
  flags: { yes?: boolean; s3Endpoint?: string },
  globals: { db?: string; url?: string; json?: boolean },
  io: Io,
): Promise<void> {
  sqliteFileOnly(localDatabase(globals, io.env, "restore"), "formsvc restore");
  const database = resolve(localDatabase(globals, io.env, "restore"));
  if (backup.startsWith("s3://")) return restoreFromBucket(backup, flags, globals, io, dirname(database));
  if (!existsSync(backup) || !statSync(backup).isFile()) throw new CliError(`no backup at ${backup}`);
  if (resolve(backup) === database) throw new CliError(`${backup} is the database itself: name a backup file`, EXIT.usage);
  const dir = dirname(database);
  if (!existsSync(dir)) throw new CliError(`the directory ${dir} does not exist: make it first, owned by the user formsvc runs as`);
  const incoming = join(dir, `.${basename(database)}.restore-${process.pid}`);
  const existed = existsSync(database);
  const aside = `${database}.before-restore-${stamp()}`;
  try {
    // Copied (its -wal folded in) and checked beside the database: a copy cut short (a full disk) must not go
    // into place, and the backup itself is never opened for writing.
    const walFolded = copyFolded(backup, incoming);
    const contents = await checkBackup(incoming, backup);
    if (!flags.yes) {
      throw new CliError(`restore replaces ${database} with ${backup}; the current file is kept beside it. Run it again with --yes to go on`, EXIT.usage);
    }
    // As private as the database, and, when root restores, owned as the file it replaces (or its directory),
    // so that the service user can go on writing it.
    chmodSync(incoming, 0o600);
    if (process.getuid?.() === 0) {
      const owner = statSync(existed ? database : dir);
      chownSync(incoming, owner.uid, owner.gid);
    }
    const fd = openSync(incoming, "r+");
    fsyncSync(fd);
    closeSync(fd);
    if (existed) takeOutOfUse(database);
    if (existed) renameSync(database, aside);
    // Whatever is left of the old file's -wal and -shm goes aside with it, before the new file comes in.
    for (const suffix of ["-wal", "-shm", "-journal"]) {
      if (existsSync(`${database}${suffix}`)) renameSync(`${database}${suffix}`, `${aside}${suffix}`);
    }
    renameSync(incoming, database);
    syncDirectory(dir);
    const report: RestoreReport = {
      backup,
      database,
      replaced: existed ? aside : null,
      bytes: statSync(database).size,
      ...contents,
      walFolded,
      integrity: "ok",
    };
    if (globals.json) io.out(`${JSON.stringify(report, null, 2)}\n`);
    io.err(
      `Restored ${backup} to ${database}: ${thousands(report.forms)} forms, ${thousands(report.submissions)} submissions, ${megabytes(report.bytes)}, schema ${report.schema}; integrity check ok.\n` +
        (walFolded > 0 ? `Its -wal (${megabytes(walFolded)}) was folded in: the copy was taken while a server ran.\n` : "") +
        (existed ? `The database it replaced is kept as ${aside}.\n` : ""),
    );
  } finally {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${incoming}${suffix}`, { force: true });
  }
}

/**
 * Restores an `s3://bucket/key` object: downloaded beside the database (credentials from the AWS environment
 * variables, the endpoint from --s3-endpoint or FORMSVC_BACKUP_S3_ENDPOINT), then restored as a file is.
 */
async function restoreFromBucket(
  url: string,
  flags: { yes?: boolean; s3Endpoint?: string },
  globals: { db?: string; url?: string; json?: boolean },
  io: Io,
  dir: string,
): Promise<void> {
  const { parseS3Url, s3Client } = await import("../src/lib/s3.ts");
  const target = parseS3Url(url);
  if (!target?.key) throw new CliError(`${url} is not an object's address: give s3://bucket/path/to/formsvc-….db`, EXIT.usage);
  const { AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey } = io.env;
  if (!accessKeyId || !secretAccessKey) throw new CliError("restoring from a bucket needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", EXIT.usage);
  const client = s3Client({
    bucket: target.bucket,
    prefix: "",
    endpoint: flags.s3Endpoint || io.env.FORMSVC_BACKUP_S3_ENDPOINT || undefined,
    region: io.env.AWS_REGION || io.env.AWS_DEFAULT_REGION || "us-east-1",
    accessKeyId,
    secretAccessKey,
    sessionToken: io.env.AWS_SESSION_TOKEN || undefined,
  });
  if (!existsSync(dir)) throw new CliError(`the directory ${dir} does not exist: make it first, owned by the user formsvc runs as`);
  const local = join(dir, `.${basename(target.key)}.download-${process.pid}`);
  try {
    try {
      await Bun.write(local, client.file(target.key));
    } catch (error) {
      throw new CliError(`cannot download ${url}: ${(error as Error).message}`);
    }
    chmodSync(local, 0o600);
    await runRestore(local, flags, globals, io);
  } finally {
    rmSync(local, { force: true });
  }
}

export function restoreCommand(program: Command, io: Io): void {
  program
    .command("restore <backup>")
    .description("replace the database with a backup file or s3://bucket/key object, checked first (local mode; stop the server before)")
    .option("-y, --yes", "go on: the current database is replaced (and kept beside it)")
    .option("--s3-endpoint <url>", "an S3-compatible service's address for an s3:// backup (FORMSVC_BACKUP_S3_ENDPOINT)")
    .addHelpText(
      "after",
      "\nExamples:\n  systemctl stop formsvc\n  formsvc restore /var/backups/formsvc/formsvc-2026-11-22.db --db /var/lib/formsvc/formsvc.db --yes\n  systemctl start formsvc\n",
    )
    .action((backup: string, flags: { yes?: boolean; s3Endpoint?: string }, command: Command) => runRestore(backup, flags, command.optsWithGlobals(), io));
}
