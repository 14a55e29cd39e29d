import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// The restore drill as an owner runs it: a real server, real backups, a kill -9 that leaves -wal and -shm behind.
const dirs: string[] = [];
const servers: ServerProcess[] = [];
afterAll(async () => {
  for (const server of servers) if (server.proc.exitCode === null) await server.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function serve(db?: string): Promise<ServerProcess> {
  const server = await startServerProcess({ db, args: ["--rate-limit", "0"] });
  servers.push(server);
  dirs.push(server.dir);
  return server;
}

async function post(server: ServerProcess, name: string): Promise<void> {
  const answer = await fetch(`${server.url}/f/contact`, { method: "POST", headers: { accept: "application/json" }, body: new URLSearchParams({ name }) });
  expect(answer.status).toBe(200);
}

const names = async (db: string) => {
  const listed = await runCli(["submissions", "list", "contact", "--all", "--order", "asc", "--json", "--db", db]);
  expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
  return JSON.parse(listed.stdout).map((s: { data: { name: string } }) => s.data.name);
};

describe("formsvc restore", () => {
  test("after a crash that left -wal and -shm behind, the backup comes back whole, and no later row creeps in", async () => {
    const server = await serve();
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db])).code).toBe(0);
    for (const name of ["Ann", "Bob"]) await post(server, name);
    const backup = join(server.dir, "backup.db");
    expect((await runCli(["backup", backup, "--db", server.db])).code).toBe(0);
    for (const name of ["Cy", "Di"]) await post(server, name);
    await server.stop("SIGKILL");
    expect(existsSync(`${server.db}-wal`)).toBe(true);
    expect(statSync(`${server.db}-wal`).size).toBeGreaterThan(0);

    const restored = await runCli(["restore", backup, "--db", server.db, "--yes", "--json"]);
    expect(restored.code).toBe(0);
    const report = JSON.parse(restored.stdout);
    expect(report).toEqual({
      backup,
      database: server.db,
      replaced: expect.stringMatching(new RegExp(`^${server.db}\\.before-restore-\\d{8}T\\d{6}Z$`)),
      bytes: expect.any(Number),
      schema: expect.any(Number),
      forms: 1,
      submissions: 2,
      walFolded: 0,
      integrity: "ok",
    });
    expect(restored.stderr).toContain(`Restored ${backup} to ${server.db}: 1 forms, 2 submissions`);
    expect(existsSync(`${server.db}-wal`)).toBe(false);
    expect(statSync(server.db).mode & 0o777).toBe(0o600);

    // The restored file serves, with what the backup held and nothing of what came after it.
    const again = await serve(server.db);
    expect(await names(server.db)).toEqual(["Ann", "Bob"]);
    expect((await fetch(`${again.url}/healthz`)).status).toBe(200);
    await post(again, "Eve");
    expect(await names(server.db)).toEqual(["Ann", "Bob", "Eve"]);
    await again.stop();
    // The database it replaced is kept, whole, with the rows the crash left in its WAL.
    expect(await names(report.replaced)).toEqual(["Ann", "Bob", "Cy", "Di"]);
  });

  test("a copy taken while the server ran (the file and its -wal) comes back whole: the WAL is folded in", async () => {
    const server = await serve();
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db])).code).toBe(0);
    const sent = Array.from({ length: 250 }, (_, i) => `n${i}`);
    for (let i = 0; i < sent.length; i += 25) await Promise.all(sent.slice(i, i + 25).map((name) => post(server, name)));
    // A crash-consistent snapshot: both files as they are on disk while the server runs (and writes nothing).
    const snapshot = join(server.dir, "snapshot.db");
    copyFileSync(server.db, snapshot);
    copyFileSync(`${server.db}-wal`, `${snapshot}-wal`);
    await server.stop();
    // The main file alone lacks what the WAL holds: this copy tests the fold, not a checkpointed file.
    const alone = join(server.dir, "alone.db");
    copyFileSync(snapshot, alone);
    const partial = new Database(alone, { readonly: true });
    expect((partial.prepare("SELECT count(*) AS n FROM submissions").get() as { n: number }).n).toBeLessThan(250);
    partial.close();

    const target = join(server.dir, "restored.db");
    const restored = await runCli(["restore", snapshot, "--db", target, "--yes", "--json"]);
    expect(restored.code).toBe(0);
    expect(JSON.parse(restored.stdout)).toMatchObject({ submissions: 250, walFolded: statSync(`${snapshot}-wal`).size });
    expect(restored.stderr).toContain("Its -wal (");
    expect(existsSync(`${target}-wal`)).toBe(false);
    expect(await names(target)).toEqual(sent);
    // The backup and its -wal are left as they were.
    expect(
      readdirSync(server.dir)
        .filter((name) => name.startsWith("snapshot"))
        .sort(),
    ).toEqual(["snapshot.db", "snapshot.db-wal"]);
  });

  test("refuses a backup whose schema is not formsvc's: an extra trigger, a dropped table", async () => {
    const dir = mkdtempSync(join(tmpdir(), "formsvc-restore-"));
    dirs.push(dir);
    const db = join(dir, "formsvc.db");
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", db])).code).toBe(0);
    const altered = (name: string, sql: string) => {
      const path = join(dir, name);
      copyFileSync(db, path);
      const file = new Database(path);
      file.exec(sql);
      file.close();
      return path;
    };
    const trigger = altered("trigger.db", "CREATE TRIGGER blank AFTER INSERT ON submissions BEGIN UPDATE submissions SET data = '{}' WHERE id = new.id; END");
    expect(await runCli(["restore", trigger, "--db", db, "--yes"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `formsvc: ${trigger} is not a database as formsvc makes it (it has a trigger blank that formsvc does not make): restore another backup\n`,
    });
    const dropped = altered("dropped.db", "DROP TABLE notifications");
    const onDropped = await runCli(["restore", dropped, "--db", db, "--yes"]);
    expect(onDropped.code).toBe(1);
    expect(onDropped.stderr).toBe(`formsvc: ${dropped} is not a database as formsvc makes it (it has no table notifications): restore another backup\n`);
    expect(await names(db)).toEqual([]);
  });

  test("refuses while a server holds the database, and changes nothing", async () => {
    const server = await serve();
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db])).code).toBe(0);
    const backup = join(server.dir, "backup.db");
    expect((await runCli(["backup", backup, "--db", server.db])).code).toBe(0);
    await post(server, "Ann");
    const refused = await runCli(["restore", backup, "--db", server.db, "--yes"]);
    expect(refused).toEqual({
      code: 1,
      stdout: "",
      stderr: `formsvc: ${server.db} is in use by a running server (or another formsvc command): stop it first (systemctl stop formsvc), then restore\n`,
    });
    expect(readdirSync(server.dir).filter((name) => name.includes("restore"))).toEqual([]);
    expect(await names(server.db)).toEqual(["Ann"]);
    await post(server, "Bob");
    expect(await names(server.db)).toEqual(["Ann", "Bob"]);
  });

  test("refuses a damaged backup, a file that is not a formsvc database, a newer schema, and goes on only with --yes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "formsvc-restore-"));
    dirs.push(dir);
    const db = join(dir, "formsvc.db");
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", db])).code).toBe(0);
    const good = join(dir, "good.db");
    expect((await runCli(["backup", good, "--db", db])).code).toBe(0);

    const damaged = join(dir, "damaged.db");
    const bytes = readFileSync(good);
    bytes.fill(0x41, 4096 * 2, 4096 * 4);
    writeFileSync(damaged, bytes);
    const onDamaged = await runCli(["restore", damaged, "--db", db, "--yes"]);
    expect(onDamaged.code).toBe(1);
    expect(onDamaged.stderr).toMatch(new RegExp(`^formsvc: ${damaged} (fails SQLite's integrity check|is not a usable SQLite database)`));

    const text = join(dir, "notes.txt");
    writeFileSync(text, "not a database at all, just some text that is long enough to be read as a header ".repeat(20));
    expect((await runCli(["restore", text, "--db", db, "--yes"])).code).toBe(1);

    const other = join(dir, "other.db");
    new Database(other, { create: true }).exec("CREATE TABLE t (x)");
    expect(await runCli(["restore", other, "--db", db, "--yes"])).toEqual({
      code: 1,
      stdout: "",
      stderr: `formsvc: ${other} is not a formsvc database (it has no __drizzle_migrations, accounts, api_keys, forms, submissions table)\n`,
    });

    const newer = join(dir, "newer.db");
    expect((await runCli(["backup", newer, "--db", db])).code).toBe(0);
    const future = new Database(newer);
    future.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('future', ?)`).run(Date.now() * 2);
    future.close();
    const onNewer = await runCli(["restore", newer, "--db", db, "--yes"]);
    expect(onNewer.code).toBe(1);
    expect(onNewer.stderr).toContain("newer than this formsvc's");

    expect(await runCli(["restore", good, "--db", db])).toEqual({
      code: 2,
      stdout: "",
      stderr: `formsvc: restore replaces ${db} with ${good}; the current file is kept beside it. Run it again with --yes to go on\n`,
    });
    expect(readdirSync(dir).sort()).toEqual(["damaged.db", "formsvc.db", "good.db", "newer.db", "notes.txt", "other.db"]);
    expect((await runCli(["restore", good, "--db", db, "--yes"])).code).toBe(0);
    expect(await names(db)).toEqual([]);
  });
});
