import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { openStore } from "../../src/db/client.ts";
import { type BackupStatus, startBackups } from "../../src/workers/backups.ts";
import { RateLimiter } from "../../src/http/rate-limit.ts";
import { BASE, testApp } from "../helpers/app.ts";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startS3Server } from "../helpers/s3.ts";
import { startServerProcess } from "../helpers/server.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** What a copy holds, opened on its own: SQLite's integrity check and the forms' slugs. */
function inspect(bytes: Uint8Array | string): { integrity: string; slugs: string[] } {
  let path = bytes as string;
  if (typeof bytes !== "string") {
    path = join(mkdtempSync(join(tmpdir(), "formsvc-copy-")), "copy.db");
    dirs.push(path.slice(0, -"/copy.db".length));
    writeFileSync(path, bytes);
  }
  const db = new Database(path, { readonly: true });
  try {
    const { integrity_check: integrity } = db.prepare("PRAGMA integrity_check").get() as { integrity_check: string };
    const slugs = (db.prepare("SELECT slug FROM forms ORDER BY slug").all() as { slug: string }[]).map((row) => row.slug);
    return { integrity, slugs };
  } finally {
    db.close();
  }
}

test("serve backs up on a schedule to a folder and a bucket, keeps N of each, shows the last one; restore takes either", async () => {
  const s3 = startS3Server();
  const dir = mkdtempSync(join(tmpdir(), "formsvc-backups-"));
  dirs.push(dir);
  const folder = join(dir, "backups");
  const aws = { AWS_ACCESS_KEY_ID: s3.accessKeyId, AWS_SECRET_ACCESS_KEY: s3.secretAccessKey, AWS_REGION: "us-east-1" };
  const startedAt = Date.now();
  const server = await startServerProcess({
    args: ["--metrics", "--backup-dir", folder, "--backup-every", "1s", "--backup-keep", "3", "--backup-s3", "s3://backups/formsvc/daily"],
    env: { ...aws, FORMSVC_BACKUP_S3_ENDPOINT: s3.url },
  });
  dirs.push(server.dir);
  try {
    // The start lines are written one after another: the schedule's comes after the one the helper waits for.
    for (const until = Date.now() + 5_000; !server.stderr().includes("backups every") && Date.now() < until; ) await Bun.sleep(20);
    expect(server.stderr()).toContain(`backups every 1s to ${folder} and s3://backups/formsvc/daily, the last 3 kept; last backup: none yet\n`);
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db])).code).toBe(0);
    // At least five copies made and sent, two of them after the form was: the older ones are gone from both places.
    const puts = () => s3.log.filter((line) => line.startsWith("PUT ")).length;
    const wanted = Math.max(5, puts() + 2);
    const deadline = Date.now() + 30_000;
    while (puts() < wanted && Date.now() < deadline) await Bun.sleep(100);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    const lastSuccess = Number(/^formsvc_backup_last_success_time (\S+)$/m.exec(metrics)?.[1]);
    expect(lastSuccess * 1000).toBeGreaterThan(startedAt);
    expect(metrics).toContain("formsvc_backup_last_failed 0\n");
  } finally {
    await server.stop();
  }
  expect(s3.log.filter((line) => line.startsWith("PUT ")).length).toBeGreaterThanOrEqual(5);
  expect(s3.log.filter((line) => line.startsWith("DELETE ")).length).toBeGreaterThanOrEqual(2);
  const local = readdirSync(folder)
    .filter((name) => name.endsWith(".db"))
    .sort();
  expect(local).toHaveLength(3);
  for (const name of local) expect(name).toMatch(/^formsvc-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d\.\d{3}Z\.db$/);
  expect([...s3.objects.keys()].sort()).toEqual(local.map((name) => `formsvc/daily/${name}`));
  // Each copy, in the folder and in the bucket, opens on its own, passes the check and holds the form.
  const newest = local.at(-1)!;
  expect(inspect(join(folder, newest))).toEqual({ integrity: "ok", slugs: ["contact"] });
  for (const name of local) {
    expect(inspect(join(folder, name)).integrity).toBe("ok");
    expect(inspect(s3.objects.get(`formsvc/daily/${name}`)!).integrity).toBe("ok");
  }

  const fromFile = join(dir, "from-file.db");
  expect((await runCli(["restore", join(folder, newest), "--db", fromFile, "--yes"])).code).toBe(0);
  const fromBucket = join(dir, "from-bucket.db");
  const restored = await runCli(["restore", `s3://backups/formsvc/daily/${newest}`, "--db", fromBucket, "--yes", "--s3-endpoint", s3.url], { env: aws });
  expect({ code: restored.code, stderr: restored.stderr }).toEqual({ code: 0, stderr: expect.stringContaining(`to ${fromBucket}: 1 forms, 0 submissions`) });
  for (const db of [fromFile, fromBucket]) {
    const list = await runCli(["forms", "list", "--db", db, "--json"]);
    expect(JSON.parse(list.stdout).map((form: { slug: string }) => form.slug)).toEqual(["contact"]);
  }
  const missing = await runCli(["restore", "s3://backups/formsvc/daily/none.db", "--db", fromBucket, "--yes", "--s3-endpoint", s3.url], { env: aws });
  expect({ code: missing.code, stderr: missing.stderr }).toEqual({
    code: 1,
    stderr: expect.stringContaining("formsvc: cannot download s3://backups/formsvc/daily/none.db"),
  });
  s3.stop();
});

test("a restart shows the last backup the folder holds; bad backup settings are refused at start", async () => {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-backups-"));
  dirs.push(dir);
  const folder = join(dir, "backups");
  const first = await startServerProcess({ args: ["--backup-dir", folder, "--backup-every", "1s", "--backup-keep", "2"] });
  dirs.push(first.dir);
  const deadline = Date.now() + 20_000;
  const copies = () => readdirSync(folder).filter((name) => name.endsWith(".db"));
  while (copies().length === 0 && Date.now() < deadline) await Bun.sleep(100);
  await first.stop();
  const newest = copies().sort().at(-1)!;
  const second = await startServerProcess({ db: first.db, args: ["--backup-dir", folder, "--backup-every", "24h"] });
  const when = newest.replace(/^formsvc-(.*)T(\d\d)-(\d\d)-(\d\d)(.*)\.db$/, "$1T$2:$3:$4$5");
  // The start lines after "listening" are read as they come: wait for the backup line before stopping.
  const until = Date.now() + 10_000;
  while (!second.stderr().includes("backups every") && Date.now() < until) await Bun.sleep(20);
  await second.stop();
  expect(second.stderr()).toContain(`backups every 24h to ${folder}, the last 7 kept; last backup: ${when} (${join(folder, newest)})\n`);

  const noCredentials = await runCli(["serve", "--port", "0", "--db", join(dir, "x.db"), "--backup-dir", folder, "--backup-s3", "s3://my-bucket/p"]);
  expect({ code: noCredentials.code, stderr: noCredentials.stderr }).toEqual({
    code: 2,
    stderr: "formsvc: backup-s3 needs the bucket's credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY\n",
  });
  const badEvery = await runCli(["serve", "--port", "0", "--db", join(dir, "x.db"), "--backup-dir", folder, "--backup-every", "daily"]);
  expect(badEvery.stderr).toBe('formsvc: backup-every must be a duration such as 90s, 15m, 24h or 7d, at most 366d, not "daily"\n');
});

test("rotation goes by what was made, not by names: copies named in the future neither push new ones out nor pass for the last", async () => {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-backups-"));
  dirs.push(dir);
  const folder = join(dir, "backups");
  const store = await openStore(join(dir, "formsvc.db"));
  // Copies a clock that was ahead left behind, and one dropped in by hand.
  mkdirSync(folder);
  const future = ["formsvc-2099-01-01T00-00-00.000Z.db", "formsvc-2098-06-01T00-00-00.000Z.db"];
  for (const name of future) writeFileSync(join(folder, name), "an old copy");
  const lines: string[] = [];
  let clock = Date.parse("2026-11-27T03:00:00Z");
  const backups = startBackups(store, {
    dir: folder,
    everyMs: 24 * 3_600_000,
    keep: 2,
    s3: null,
    log: { line: (text) => lines.push(text), error: (message) => lines.push(message) },
    now: () => clock,
  });
  try {
    // Nothing this schedule made yet, and a name in the future is no last backup.
    expect(backups.status()).toMatchObject({ lastSuccessAt: null, lastFile: null });
    const made: string[] = [];
    for (let day = 0; day < 3; day++) {
      await backups.backUpNow();
      const status = backups.status();
      made.push(status.lastFile!);
      expect({ error: status.lastError, at: status.lastSuccessAt, there: existsSync(status.lastFile!) }).toEqual({ error: null, at: clock, there: true });
      clock += 24 * 3_600_000;
    }
    // The last two made are kept; the older copies, whatever their names, went first.
    const kept = readdirSync(folder)
      .filter((name) => name.endsWith(".db"))
      .sort();
    expect(kept).toEqual(made.slice(1).map((path) => path.slice(folder.length + 1)));
  } finally {
    await backups.stop();
  }
  // A restart shows the copy made last, not the one whose name sorts last.
  writeFileSync(join(folder, future[0]!), "dropped in by hand");
  const again = startBackups(store, { dir: folder, everyMs: 24 * 3_600_000, keep: 2, s3: null, log: { line: () => {}, error: () => {} }, now: () => clock });
  expect(again.status()).toMatchObject({ lastSuccessAt: clock - 24 * 3_600_000, lastFile: expect.stringContaining("formsvc-2026-11-29T03-00-00.000Z.db") });
  await again.stop();
  store.close();
});

test("the dashboard's account page shows the schedule, the last good copy and a failure", async () => {
  const t = await testApp();
  const status: BackupStatus = {
    lastSuccessAt: Date.parse("2026-11-25T03:00:00Z"),
    lastAttemptAt: Date.parse("2026-11-26T03:00:00Z"),
    lastError: "disk full",
    lastFile: "/var/backups/formsvc/formsvc-2026-11-25T03-00-00.000Z.db",
    everyMs: 24 * 3_600_000,
    keep: 7,
    dir: "/var/backups/formsvc",
    s3: "s3://backups/formsvc",
  };
  const app = createApp({
    services: t.services,
    maxBody: 1024 * 1024,
    trustProxy: false,
    rateLimiter: new RateLimiter(0, 10),
    log: { request: () => undefined, error: () => undefined },
    backups: () => status,
  });
  const account = await t.account("mine");
  const user = await t.services.users.create(account.id, "me@example.com", "a long enough password");
  const session = await t.services.users.createSession(user.id);
  const page = await app.fetch(new Request(`${BASE}/dashboard/account`, { headers: { cookie: `formsvc_session=${session.token}` } }));
  const text = (await page.text()).replace(/<[^>]+>/g, "").replace(/&#39;/g, "'");
  t.close();
  expect(page.status).toBe(200);
  expect(text).toContain("Every 24 hours to /var/backups/formsvc and s3://backups/formsvc, the last 7 kept.");
  expect(text).toContain("Last backup: 2026-11-25T03:00:00.000Z, /var/backups/formsvc/formsvc-2026-11-25T03-00-00.000Z.db");
  expect(text).toContain("The last attempt failed: disk full");
});
