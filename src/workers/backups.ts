// Backups on a schedule (`serve --backup-dir DIR --backup-every 24h --backup-keep 7 [--backup-s3 s3://…]`):
// a consistent copy of the database made while the server runs, checked, kept N in the folder and N in
// the bucket. The last result is what /metrics, the start lines and the dashboard's account page show.
import { mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
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

/** The copies in the folder, oldest first. */
function localCopies(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => NAME.test(name))
    .sort();
}

/** Sends the copy to the bucket, then deletes the bucket's oldest copies beyond `keep`. */
async function toBucket(target: S3Target, path: string, name: string, keep: number): Promise<void> {
  const client = s3Client(target);
  const base = target.prefix ? `${target.prefix}/` : "";
  await client.write(`${base}${name}`, Bun.file(path));
  const listed = await client.list({ prefix: base });
  const names = (listed.contents ?? [])
    .map((object) => object.key.slice(base.length))
    .filter((key) => NAME.test(key))
    .sort();
  for (const old of names.slice(0, Math.max(0, names.length - keep))) await client.delete(`${base}${old}`);
}

/** Starts the schedule: a copy every `everyMs`, the first one `everyMs` after start. */
export function startBackups(store: Store, schedule: BackupSchedule) {
  mkdirSync(schedule.dir, { recursive: true, mode: 0o700 });
  const newest = localCopies(schedule.dir).at(-1);
  const status: BackupStatus = {
    lastSuccessAt: newest ? timeOf(newest) : null,
    lastAttemptAt: null,
    lastError: null,
    lastFile: newest ? join(schedule.dir, newest) : null,
    everyMs: schedule.everyMs,
    keep: schedule.keep,
    dir: schedule.dir,
    s3: schedule.s3 ? `s3://${schedule.s3.bucket}/${schedule.s3.prefix}` : null,
  };
  let running: Promise<void> | null = null;

  async function once(): Promise<void> {
    const at = Date.now();
    const path = join(schedule.dir, nameAt(at));
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
      for (const old of localCopies(schedule.dir).slice(0, -schedule.keep)) rmSync(join(schedule.dir, old), { force: true });
      if (schedule.s3) await toBucket(schedule.s3, path, nameAt(at), schedule.keep);
      Object.assign(status, { lastSuccessAt: at, lastError: null, lastFile: path });
      schedule.log.line(`backup: ${path} (${statSync(path).size} bytes, integrity ok)${status.s3 ? `, sent to ${status.s3}` : ""}`);
    } catch (error) {
      status.lastError = (error as Error).message;
      schedule.log.error(`backup to ${path} failed`, error);
    }
  }

  const timer = setInterval(() => {
    running ??= once().finally(() => {
      running = null;
    });
  }, schedule.everyMs);
  return {
    /** The last result, for /metrics, the start lines and the dashboard. */
    status: (): BackupStatus => ({ ...status }),
    /** Stops the schedule, letting a copy under way finish. */
    async stop(): Promise<void> {
      clearInterval(timer);
      await running;
    },
  };
}
