// Backups on a schedule (`serve --backup-dir DIR --backup-every 24h --backup-keep 7 [--backup-s3 s3://…]`):
// a consistent copy of the database made while the server runs, checked, kept N in the folder and N in
// the bucket. The last result is what /metrics, the start lines and the dashboard's account page show.
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Store } from "../db/client.ts";
import { copyInto } from "../db/migrate.ts";
import { type S3Target, s3Client } from "../lib/s3.ts";
import { iso } from "../lib/time.ts";

export interface BackupSchedule {
  dir: string;
  everyMs: number;
  keep: number;
  s3: S3Target | null;
  log: { line(text: string): void; error(message: string, error: unknown): void };
  /** The clock copies are named and dated by (Date.now unless a test gives its own). */
  now?: () => number;
}

/** The outcome of the last scheduled backup, as the server shows it. */
export interface BackupStatus {
  /** When the last good copy was made (ms), from this process or, at start, the newest copy in the folder. */
  lastSuccessAt: number | null;
  lastAttemptAt: number | null;
  /** Why the last attempt failed, or null when it did not. */
  lastError: string | null;
  /** The file the last good copy is in. */
  lastFile: string | null;
  everyMs: number;
  keep: number;
  dir: string;
  s3: string | null;
}

/** A copy's name: `formsvc-2026-11-25T03-00-00.000Z.db`, so that names sort as times do. */
const NAME = /^formsvc-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z)\.db$/;
const nameAt = (ms: number) => `formsvc-${iso(ms).replaceAll(":", "-")}.db`;
const timeOf = (name: string) => {
  const found = NAME.exec(name);
  return found ? Date.parse(found[1]!.replace(/T(\d\d)-(\d\d)-(\d\d)/, "T$1:$2:$3")) : null;
};

/**
 * The copies the schedule made, in the order it made them: a file in the folder, so that rotation and the start
 * lines go by what was made, not by names (a clock that was once ahead names copies in the future, and every
 * newer copy would sort before them and be the one rotated away).
 */
const MANIFEST = "formsvc-backups.json";

interface Made {
  name: string;
  at: number;
}

function readManifest(dir: string): Made[] {
  try {
    const entries = JSON.parse(readFileSync(join(dir, MANIFEST), "utf8")) as Made[];
    return Array.isArray(entries) ? entries.filter((entry) => typeof entry?.name === "string" && NAME.test(entry.name)) : [];
  } catch {
    return [];
  }
}

function writeManifest(dir: string, entries: Made[]): void {
  const temporary = join(dir, `.${MANIFEST}.${process.pid}`);
  writeFileSync(temporary, JSON.stringify(entries), { mode: 0o600 });
  renameSync(temporary, join(dir, MANIFEST));
}

/** `names` oldest first: those the manifest does not know (older copies, by name), then the manifest's, as made. */
function inOrderMade(names: string[], made: Made[]): string[] {
  const rank = new Map(made.map((entry, i) => [entry.name, i]));
  const unknown = names.filter((name) => !rank.has(name)).sort();
  const known = names.filter((name) => rank.has(name)).sort((a, b) => rank.get(a)! - rank.get(b)!);
  return [...unknown, ...known];
}

/** The copies in the folder, oldest first by when they were made. */
function localCopies(dir: string, made: Made[]): string[] {
  return inOrderMade(
    readdirSync(dir).filter((name) => NAME.test(name)),
    made,
  );
}

/** The last good copy the folder holds at start: the manifest's newest, else the newest name not in the future. */
function lastCopy(dir: string, now: number): Made | null {
  const made = readManifest(dir).filter((entry) => existsSync(join(dir, entry.name)));
  if (made.length > 0) return made.at(-1)!;
  const named = localCopies(dir, [])
    .map((name) => ({ name, at: timeOf(name)! }))
    .filter((copy) => copy.at <= now);
  return named.at(-1) ?? null;
}

/** Sends the copy to the bucket, then deletes the bucket's oldest copies beyond `keep` (never the one just sent). */
async function toBucket(target: S3Target, path: string, name: string, keep: number, made: Made[]): Promise<void> {
  const client = s3Client(target);
  const base = target.prefix ? `${target.prefix}/` : "";
  await client.write(`${base}${name}`, Bun.file(path));
  const listed = await client.list({ prefix: base });
  const others = (listed.contents ?? []).map((object) => object.key.slice(base.length)).filter((key) => NAME.test(key) && key !== name);
  const older = inOrderMade(others, made);
  for (const old of older.slice(0, Math.max(0, older.length - (keep - 1)))) await client.delete(`${base}${old}`);
}

/** Starts the schedule: a copy every `everyMs`, the first one `everyMs` after start. */
export function startBackups(store: Store, schedule: BackupSchedule) {
  mkdirSync(schedule.dir, { recursive: true, mode: 0o700 });
  const now = schedule.now ?? Date.now;
  const newest = lastCopy(schedule.dir, now());
  const status: BackupStatus = {
    lastSuccessAt: newest?.at ?? null,
    lastAttemptAt: null,
    lastError: null,
    lastFile: newest ? join(schedule.dir, newest.name) : null,
    everyMs: schedule.everyMs,
    keep: schedule.keep,
    dir: schedule.dir,
    s3: schedule.s3 ? `s3://${schedule.s3.bucket}/${schedule.s3.prefix}` : null,
  };
  let running: Promise<void> | null = null;

  async function once(): Promise<void> {
    const at = now();
    const name = nameAt(at);
    const path = join(schedule.dir, name);
    status.lastAttemptAt = at;
    try {
      // Its own read-only connection where there is one: the copy reads one snapshot and holds up no write.
      const reader = store.openReader?.();
      if (reader) {
        try {
          copyInto(reader, path);
        } finally {
          reader.close();
        }
      } else {
        await store.backup(path);
      }
      const made = [...readManifest(schedule.dir).filter((entry) => entry.name !== name && existsSync(join(schedule.dir, entry.name))), { name, at }];
      writeManifest(schedule.dir, made);
      const older = localCopies(schedule.dir, made).filter((copy) => copy !== name);
      for (const old of older.slice(0, Math.max(0, older.length - (schedule.keep - 1)))) rmSync(join(schedule.dir, old), { force: true });
      // A run is a success only while its copy is there to restore.
      if (!existsSync(path)) throw new Error(`the copy ${path} is gone: something else removed it`);
      if (schedule.s3) await toBucket(schedule.s3, path, name, schedule.keep, made);
      Object.assign(status, { lastSuccessAt: at, lastError: null, lastFile: path });
      schedule.log.line(`backup: ${path} (${statSync(path).size} bytes, integrity ok)${status.s3 ? `, sent to ${status.s3}` : ""}`);
    } catch (error) {
      status.lastError = (error as Error).message;
      schedule.log.error(`backup to ${path} failed`, error);
    }
  }

  const run = (): Promise<void> =>
    (running ??= once().finally(() => {
      running = null;
    }));
  const timer = setInterval(run, schedule.everyMs);
  return {
    /** Makes a copy now, as the schedule does (or waits for the one under way). */
    backUpNow: run,
    /** The last result, for /metrics, the start lines and the dashboard. */
    status: (): BackupStatus => ({ ...status }),
    /** Stops the schedule, letting a copy under way finish. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
