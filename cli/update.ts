import type { Command } from "commander";
import { accessSync, constants, existsSync, readdirSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import {
  buildInfo,
  builtInKey,
  checkForUpdate,
  checkFresh,
  compareVersions,
  fetchManifest,
  type Manifest,
  ReleaseError,
  releaseFolder,
} from "../src/lib/release.ts";
import { CliError, EXIT, ExitStatus } from "./errors.ts";
import type { Io } from "./io.ts";
import { binaryInfo, removeLeftovers, replaceWithDownload, swapWithPrevious } from "./self-replace.ts";

/** `formsvc update`'s flags (docs/cli.md, "update"). */
export interface UpdateOptions {
  check?: boolean;
  to?: string;
  from?: string;
  yes?: boolean;
  restart?: boolean;
  rollback?: boolean;
}

/** Where `--rollback` and `--to` look for the database when neither --db nor FORMSVC_DB says: install.sh's place. */
const DEFAULT_DB = "/var/lib/formsvc/formsvc.db";
const RESTART_COMMAND = ["systemctl", "restart", "formsvc"];

/** This binary's path and its release key; a development build (run by bun, or `npm run build`) cannot update. */
function releasedSelf(): { self: string; key: Uint8Array } {
  const key = builtInKey();
  if (!key) throw new CliError("this is a development build of formsvc: it knows no release to update from (install a release: docs/deploy.md)");
  return { self: realpathSync(process.execPath), key };
}

/** Refuses early, in words, when the binary's folder cannot be written (the usual case without sudo). */
function checkWritable(self: string): void {
  try {
    accessSync(dirname(self), constants.W_OK);
  } catch {
    throw new CliError(`cannot write to ${dirname(self)}, where formsvc is: run it as a user who may (sudo formsvc update …)`);
  }
}

/** A release's refusal is the CLI's one-line error (exit 1). */
const asCliError = (error: unknown): never => {
  throw error instanceof ReleaseError ? new CliError(error.message) : error;
};

/** The signed manifest of the release folder --from and --to name (default: the address this binary was released from). */
async function manifestFor(options: UpdateOptions, key: Uint8Array): Promise<{ manifest: Manifest; folder: string }> {
  const base = options.from ?? buildInfo().baseUrl;
  if (!base) throw new CliError("this formsvc was released without an address to update from: pass --from URL");
  const folder = releaseFolder(base, options.to);
  const manifest = await fetchManifest(folder, key).catch(asCliError);
  if (options.to && manifest.version !== options.to) throw new CliError(`${folder} holds formsvc ${manifest.version}, not ${options.to}`);
  if (!options.to) {
    try {
      checkFresh(manifest, folder);
    } catch (error) {
      asCliError(error);
    }
  }
  return { manifest, folder };
}

/** Asks before a change, on a terminal; without one, only --yes goes on (exit 2 otherwise). */
async function confirm(io: Io, yes: boolean | undefined, question: string, flag: string): Promise<void> {
  if (yes) return;
  if (!io.inIsTTY) throw new CliError(`${question.replace(/\?$/, "")}: not without a terminal to ask on; pass --yes (${flag})`, EXIT.usage);
  const answer = await io.prompt(`${question} [y/N] `);
  if (!/^y(es)?$/i.test(answer?.trim() ?? "")) throw new CliError("nothing was changed");
}

/** After a change: restart the unit (--restart), or say how. */
function restartOrSay(io: Io, restart: boolean | undefined): void {
  if (!restart) {
    io.err(`The running server is untouched: restart it to run this binary (sudo ${RESTART_COMMAND.join(" ")}).\n`);
    return;
  }
  const run = Bun.spawnSync(RESTART_COMMAND, { stdout: "ignore", stderr: "pipe" });
  if (run.exitCode !== 0) {
    // systemctl says why over several lines; the error is one line, so they are joined rather than escaped.
    const said = run.stderr
      .toString()
      .trim()
      .split(/\s*\n\s*/)
      .filter(Boolean)
      .join(" ");
    throw new CliError(`${RESTART_COMMAND.join(" ")} failed: ${said || `exit ${run.exitCode}`}`);
  }
  io.err(`Restarted: ${RESTART_COMMAND.join(" ")}.\n`);
}

/** `update --check`: says `current → available`; exit 10 when the available one is newer. */
async function runCheck(options: UpdateOptions, json: boolean, io: Io): Promise<void> {
  const check = await checkForUpdate(options).catch(asCliError);
  if (json) io.out(`${JSON.stringify(check, null, 2)}\n`);
  else io.out(`${check.current} → ${check.available}${check.newer ? "" : " (up to date)"}\n`);
  if (check.newer) throw new ExitStatus(EXIT.newerAvailable);
}

/**
 * Refuses, in words, to put a binary that knows schema `known` in place over the database `db` when the database
 * is newer (an older release, or the one before a migration): that binary would not start on it. `again` is the
 * command to run once the database is restored.
 */
async function refuseNewerDatabase(db: string, target: { version: string; schema: number }, again: string): Promise<void> {
  const schema = await databaseSchema(db);
  if (schema === null || schema <= target.schema) return;
  const backup = backupBefore(db, target.schema);
  const restore = `formsvc restore ${backup ?? "BACKUP"} --db ${db} --yes`;
  throw new CliError(
    `the database ${db} has schema version ${schema}, newer than formsvc ${target.version} knows (${target.schema}), so nothing was changed: ` +
      (backup ? `serve backed it up before migrating, to ${backup}; ` : "restore a backup taken before the upgrade; ") +
      `stop the server, run "${restore}" (it keeps the database it replaces), then ${again} again`,
  );
}

/** `update [--to V]`: downloads, checks and puts the release's binary for this platform in place of this one. */
async function runUpdate(options: UpdateOptions, db: string, io: Io): Promise<void> {
  const { self, key } = releasedSelf();
  const info = buildInfo();
  const { manifest, folder } = await manifestFor(options, key);
  const order = compareVersions(manifest.version, info.version);
  if (order === 0 || (order < 0 && !options.to)) {
    io.err(`formsvc ${info.version} is up to date (${folder} holds ${manifest.version})\n`);
    return;
  }
  const artifact = manifest.artifacts.find((a) => a.os === info.os && a.arch === info.arch);
  if (!artifact) throw new CliError(`the release ${manifest.version} at ${folder} has no binary for ${info.os}-${info.arch}`);
  checkWritable(self);
  await confirm(io, options.yes, `Replace formsvc ${info.version} at ${self} with ${manifest.version}?`, "formsvc update --yes");
  // An older release (--to) may not know the database's schema: checked on the downloaded binary's own word.
  await replaceWithDownload(self, folder, artifact, manifest.version, fetch, (said) =>
    refuseNewerDatabase(db, said, `formsvc update --to ${manifest.version}`),
  );
  io.err(
    `formsvc ${info.version} → ${manifest.version} at ${self}; ${info.version} is kept as ${basename(self)}.previous (formsvc update --rollback puts it back).\n`,
  );
  restartOrSay(io, options.restart);
}

/** The schema version a SQLite file holds (read without changing it), or null when there is no such file. */
async function databaseSchema(db: string): Promise<number | null> {
  if (!existsSync(db) || /^(libsql|https?|wss?):/.test(db)) return null;
  const { LAST_MIGRATION, openForReading } = await import("../src/db/migrate.ts");
  const probe = openForReading(db);
  try {
    const table = probe.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'`).get();
    return table ? (probe.prepare(LAST_MIGRATION).get() as { applied: number }).applied : 0;
  } finally {
    probe.close();
  }
}

/** The newest copy serve made of `db` before migrating it, at a schema no newer than `schema`; null when none. */
function backupBefore(db: string, schema: number): string | null {
  const prefix = `${basename(db)}.schema-`;
  const copies = readdirSync(dirname(db))
    .filter((name) => name.startsWith(prefix) && name.endsWith(".bak") && Number(name.slice(prefix.length).split("-")[0]) <= schema)
    // The time in the name sorts as text: the last is the newest.
    .sort((a, b) => a.slice(a.indexOf("-", prefix.length)).localeCompare(b.slice(b.indexOf("-", prefix.length))));
  const newest = copies.at(-1);
  return newest ? join(dirname(db), newest) : null;
}

/** `update --rollback`: puts formsvc.previous back, unless the database is at a schema it does not know. */
async function runRollback(options: UpdateOptions, db: string, io: Io): Promise<void> {
  const { self } = releasedSelf();
  const previousPath = `${self}.previous`;
  if (!existsSync(previousPath)) throw new CliError(`there is no ${previousPath} to roll back to`);
  const previous = binaryInfo(previousPath);
  await refuseNewerDatabase(db, previous, "formsvc update --rollback");
  checkWritable(self);
  removeLeftovers(self);
  await confirm(io, options.yes, `Put formsvc ${previous.version} back in place of ${buildInfo().version} at ${self}?`, "formsvc update --rollback --yes");
  swapWithPrevious(self);
  io.err(`formsvc ${buildInfo().version} → ${previous.version} at ${self}; ${buildInfo().version} is kept as ${basename(self)}.previous.\n`);
  restartOrSay(io, options.restart);
}

export function updateCommand(program: Command, io: Io): void {
  program
    .command("update")
    .description("replace this binary with a newer release, checked against the release key built into it")
    .option("--check", "only say `current → available`: exit 0 when nothing is newer, 10 when a newer release exists")
    .option("--to <version>", "that version (from FROM/VERSION/), newer or older (refused over a database it cannot read)")
    .option("--from <url>", "the release folder (default: the address this binary was released from)")
    .option("--yes", "do not ask (needed without a terminal)")
    .option("--restart", `restart the service afterwards (${RESTART_COMMAND.join(" ")})`)
    .option("--rollback", "put formsvc.previous back (refused over a database it cannot read; --db, FORMSVC_DB, else /var/lib/formsvc/formsvc.db)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc update --check\n  sudo formsvc update --yes --restart\n  sudo formsvc update --to 1.4.2 --yes\n  sudo formsvc update --rollback --yes --restart\n",
    )
    .action(async (options: UpdateOptions, command: Command) => {
      const globals = command.optsWithGlobals() as { db?: string; json?: boolean };
      const db = globals.db || io.env.FORMSVC_DB || DEFAULT_DB;
      if (options.rollback) await runRollback(options, db, io);
      else if (options.check) await runCheck(options, globals.json ?? false, io);
      else await runUpdate(options, db, io);
    });
}
