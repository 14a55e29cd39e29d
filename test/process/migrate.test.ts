import { Database } from "bun:sqlite";
import { afterAll, afterEach, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.stop();
});
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const OLDER = migrations.length - 1;
const LAST_TAG = migrations[migrations.length - 1]!.tag;

/**
 * A database as the previous release left it (every migration but the last), in WAL mode, with one form;
 * the connection returned stays open, as the older server's would, and keeps a write in the -wal file.
 */
function olderDatabase(): { dir: string; path: string; holder: Database } {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-migrate-cli-"));
  dirs.push(dir);
  const path = join(dir, "live.db");
  const holder = new Database(path);
  holder.exec("PRAGMA journal_mode = WAL");
  holder.exec("PRAGMA wal_autocheckpoint = 0");
  holder.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
  for (const migration of migrations.slice(0, OLDER)) {
    for (const statement of migration.sql.split("--> statement-breakpoint")) holder.exec(statement);
    holder.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES (?, ?)`).run(migration.tag, migration.when);
  }
  holder.exec(`INSERT INTO accounts (id, name, is_default, created_at) VALUES ('acc_1', 'default', 1, 1)`);
  holder.exec(`INSERT INTO forms (id, account_id, mode, name, slug, created_at, updated_at) VALUES ('frm_1', 'acc_1', 'live', 'Contact', 'contact', 1, 1)`);
  return { dir, path, holder };
}

const sha256 = (path: string) => (existsSync(path) ? new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex") : "absent");
const fingerprint = (path: string) => ({ db: sha256(path), wal: sha256(`${path}-wal`) });
const applied = (path: string) => {
  const db = new Database(path, { readonly: true });
  const { n } = db.prepare(`SELECT count(*) AS n FROM "__drizzle_migrations"`).get() as { n: number };
  db.close();
  return n;
};

test("a read command on an older database exits 1 naming formsvc migrate and serve, and leaves every byte as it was", async () => {
  const { path, holder } = olderDatabase();
  const before = fingerprint(path);
  expect(statSync(`${path}-wal`).size).toBeGreaterThan(0);
  for (const args of [
    ["forms", "list"],
    ["submissions", "list", "contact"],
    ["keys", "list"],
    ["notifications", "list", "contact"],
  ]) {
    const result = await runCli([...args, "--db", path]);
    expect({ code: result.code, stdout: result.stdout, stderr: result.stderr }).toEqual({
      code: 1,
      stdout: "",
      stderr:
        `formsvc: the database ${path} has schema version ${OLDER}, older than this formsvc's ${migrations.length}, and was left unchanged: ` +
        `run "formsvc migrate --db ${path}" (it backs the file up first; --dry-run lists the 1 migration(s)), ` +
        'or start "formsvc serve" on it, which backs it up into its folder and then migrates\n',
    });
  }
  const dryRun = await runCli(["migrate", "--dry-run", "--db", path]);
  expect({ code: dryRun.code, stdout: dryRun.stdout }).toEqual({ code: 0, stdout: `${LAST_TAG}\n` });
  expect(dryRun.stderr).toContain(`is at schema version ${OLDER}; formsvc migrate would back it up into its folder, then run:`);
  const backup = await runCli(["backup", join(tmpdir(), `formsvc-older-${process.pid}.db`), "--db", path]);
  expect(backup.code).toBe(0);
  rmSync(join(tmpdir(), `formsvc-older-${process.pid}.db`));
  expect(fingerprint(path)).toEqual(before);
  expect(applied(path)).toBe(OLDER);
  holder.close();
});

test("formsvc migrate backs up into the database's folder, then migrates; read commands work after it", async () => {
  const { dir, path, holder } = olderDatabase();
  holder.close();
  const migrated = await runCli(["migrate", "--db", path, "--json"]);
  expect(migrated.code).toBe(0);
  const report = JSON.parse(migrated.stdout);
  expect(report).toEqual({
    database: path,
    from: OLDER,
    to: migrations.length,
    migrations: [LAST_TAG],
    backup: expect.stringMatching(new RegExp(`^${path}\\.schema-${OLDER}-\\d{4}-\\d\\d-\\d\\dT\\d\\d-\\d\\d-\\d\\dZ\\.bak$`)),
    dryRun: false,
  });
  expect(readdirSync(dir)).toContain(report.backup.slice(dir.length + 1));
  expect(statSync(report.backup).mode & 0o777).toBe(0o600);
  expect({ backup: applied(report.backup), database: applied(path) }).toEqual({ backup: OLDER, database: migrations.length });
  const list = await runCli(["forms", "list", "--db", path, "--json"]);
  expect({ code: list.code, slugs: JSON.parse(list.stdout).map((f: { slug: string }) => f.slug) }).toEqual({ code: 0, slugs: ["contact"] });
  const again = await runCli(["migrate", "--db", path]);
  expect({ code: again.code, stderr: again.stderr }).toEqual({
    code: 0,
    stderr: `${path} is at schema version ${migrations.length}, this formsvc's: nothing to do\n`,
  });
});

test("serve backs an older database up into its folder, then migrates it, and says so", async () => {
  const { dir, path, holder } = olderDatabase();
  holder.close();
  const server = await startServerProcess({ db: path });
  servers.push(server);
  const backup = readdirSync(dir).find((name) => name.endsWith(".bak"));
  expect(backup).toMatch(new RegExp(`^live\\.db\\.schema-${OLDER}-`));
  expect(server.stderr()).toContain(`database schema ${OLDER} → ${migrations.length}\n`);
  expect(server.stderr()).toContain(`the database was backed up before it was migrated, to ${join(dir, backup!)}\n`);
  expect(applied(join(dir, backup!))).toBe(OLDER);
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
});
