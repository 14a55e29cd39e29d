import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import { CLI, ROOT, runCli } from "../helpers/cli.ts";
import { startServerProcess } from "../helpers/server.ts";

// `formsvc serve` as a VPS owner starts it: the real process, its banner, its exit code.
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-start-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const NOBODY = 65534;
const isRoot = process.getuid?.() === 0;

/**
 * The compiled binary in a directory every user may enter: an unprivileged user cannot be counted on to read
 * the checkout (or the Bun inside it) that the tests run from.
 */
async function binaryForAnyone(): Promise<string> {
  const dir = tempDir();
  chmodSync(dir, 0o755);
  const binary = join(dir, "formsvc");
  const build = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", binary], { stdout: "pipe", stderr: "pipe" });
  if ((await build.exited) !== 0) throw new Error(`build failed: ${await new Response(build.stderr).text()}`);
  return binary;
}

/** Runs `serve` until it exits or says it listens; with `asNobody`, as an unprivileged user (root may write anything). */
async function serveOnce(args: string[], { asNobody = false } = {}): Promise<{ code: number | null; stderr: string }> {
  const program = asNobody ? [await binaryForAnyone()] : [process.execPath, CLI];
  const command = [...program, "serve", "--host", "127.0.0.1", "--port", "0", ...args];
  const proc = Bun.spawn(asNobody ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...command] : command, {
    env: { PATH: process.env.PATH ?? "", HOME: "/tmp" },
    // A directory every user may enter, as the checkout the tests run from may not be.
    cwd: tmpdir(),
    stdout: "ignore",
    stderr: "pipe",
  });
  let stderr = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    stderr += decoder.decode(value);
    if (/listening on/.test(stderr)) {
      proc.kill("SIGTERM");
      break;
    }
  }
  const code = await proc.exited;
  return { code: /listening on/.test(stderr) ? null : code, stderr };
}

describe("serve at start", () => {
  test("a database it cannot write: exit 1 with one line, and it never listens", async () => {
    const dir = tempDir();
    const db = join(dir, "formsvc.db");
    expect((await runCli(["keys", "create", "--db", db, "--name", "admin"])).code).toBe(0);
    for (const suffix of ["-wal", "-shm"]) rmSync(`${db}${suffix}`, { force: true });
    chmodSync(db, 0o444);
    if (isRoot) {
      // The directory is the service user's (so SQLite may make -wal and -shm there); the file is not.
      chownSync(dir, NOBODY, NOBODY);
      chmodSync(dir, 0o755);
      chmodSync(db, 0o644);
    }
    const result = await serveOnce(["--db", db], { asNobody: isRoot });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^formsvc: cannot write the database ${db} \\(.*readonly.*\\): the user formsvc runs as must be able to write the file and its directory, where SQLite keeps the -wal and -shm files beside it\\n$`,
      ),
    );
  });

  test("a missing database directory is made, owner-only; the banner shows the address bound and the URL", async () => {
    const db = join(tempDir(), "var", "lib", "formsvc", "formsvc.db");
    const server = await startServerProcess({ db });
    try {
      expect(statSync(join(db, "..")).mode & 0o777).toBe(0o700);
      const port = new URL(server.url).port;
      expect(server.stderr()).toContain(`made the directory ${join(db, "..")} for the database\n`);
      expect(server.stderr()).toContain(`formsvc listening on 127.0.0.1:${port}, http://127.0.0.1:${port} (database ${db})\n`);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  test("on 0.0.0.0 the banner says so, and gives the URL this machine reaches", async () => {
    const dir = tempDir();
    const proc = Bun.spawn([process.execPath, CLI, "serve", "--host", "0.0.0.0", "--port", "0", "--db", join(dir, "f.db")], {
      stderr: "pipe",
      stdout: "ignore",
      env: { PATH: process.env.PATH ?? "" },
    });
    const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!/listening on .*\n/.test(text)) text += new TextDecoder().decode((await reader.read()).value);
    proc.kill("SIGTERM");
    await proc.exited;
    expect(text).toMatch(/formsvc listening on 0\.0\.0\.0:(\d+), http:\/\/localhost:\1 \(database /);
  });

  test("a directory that cannot be made is said in one line, exit 1", async () => {
    const file = join(tempDir(), "a-file");
    await Bun.write(file, "");
    const result = await serveOnce(["--db", join(file, "sub", "formsvc.db")]);
    expect(result).toEqual({
      code: 1,
      stderr: `formsvc: the directory of the database, ${join(file, "sub")}, does not exist and cannot be made (ENOTDIR): make it, owned by the user formsvc runs as\n`,
    });
  });

  test("forms that take files and a --max-body below --max-file-size: serve says which limit holds", async () => {
    const db = join(tempDir(), "formsvc.db");
    expect((await runCli(["forms", "create", "--name", "Jobs", "--file-uploads", "true", "--db", db])).code).toBe(0);
    const said =
      "forms that take files accept posts of at most 1048576 bytes, files included (--max-body); to take files up to 10485760 bytes (--max-file-size), raise --max-body\n";
    for (const [args, warned] of [
      [[], true],
      [["--max-body", "20971520"], false],
    ] as const) {
      const server = await startServerProcess({ db, args: [...args] });
      try {
        // The last line serve prints at start, on a database with no key yet.
        const deadline = Date.now() + 5_000;
        while (!server.stderr().includes("No API keys yet") && Date.now() < deadline) await Bun.sleep(10);
        expect({ args, warned: server.stderr().includes(said) }).toEqual({ args, warned });
      } finally {
        await server.stop();
      }
    }
  });
});

describe("upgrades", () => {
  const latest = migrations.length;

  test("migrations that ran at start are logged with the schema versions; none, nothing is said", async () => {
    const dir = tempDir();
    const db = join(dir, "formsvc.db");
    // A database of an older formsvc: the first two migrations only, recorded as drizzle records them.
    const old = new Database(db, { create: true });
    old.exec(`CREATE TABLE "__drizzle_migrations" (id INTEGER PRIMARY KEY AUTOINCREMENT, hash text NOT NULL, created_at numeric)`);
    for (const m of migrations.slice(0, 2)) {
      for (const statement of m.sql.split("--> statement-breakpoint")) if (statement.trim()) old.exec(statement);
      old.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('old', ?)`).run(m.when);
    }
    old.close();
    const first = await serveOnce(["--db", db]);
    expect(first.stderr).toStartWith(`database schema 2 → ${latest}\nformsvc listening on`);
    const again = await serveOnce(["--db", db]);
    expect(again.stderr).toStartWith("formsvc listening on");
    const fresh = await serveOnce(["--db", join(dir, "new.db")]);
    expect(fresh.stderr).toStartWith(`database schema 0 → ${latest} (new database)\nformsvc listening on`);
  });

  test("a database a newer formsvc has migrated is refused, by serve and by the local CLI, exit 1", async () => {
    const db = join(tempDir(), "formsvc.db");
    expect((await runCli(["forms", "create", "--name", "Contact", "--db", db])).code).toBe(0);
    const newer = new Database(db);
    newer.prepare(`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('future', ?)`).run(migrations[latest - 1]!.when + 1000);
    newer.close();
    const message = `formsvc: the database ${db} has schema version ${latest + 1}, newer than this formsvc's ${latest}: a newer formsvc has upgraded it. Run that version (or newer), or restore a backup taken before the upgrade.\n`;
    expect(await serveOnce(["--db", db])).toEqual({ code: 1, stderr: message });
    const list = await runCli(["forms", "list", "--db", db]);
    expect({ code: list.code, stderr: list.stderr }).toEqual({ code: 1, stderr: message });
  });
});

describe("SIGTERM", () => {
  test("stops taking connections, finishes the request under way, exits 0", async () => {
    const server = await startServerProcess();
    const minted = await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db]);
    expect(minted.code).toBe(0);
    // A post whose body arrives slowly: under way when the signal comes.
    let sendRest!: () => void;
    const rest = new Promise<void>((resolve) => (sendRest = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('{"name":'));
        await rest;
        controller.enqueue(new TextEncoder().encode('"Ann"}'));
        controller.close();
      },
    });
    const posting = fetch(`${server.url}/f/contact`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
      duplex: "half",
    } as RequestInit);
    await Bun.sleep(100);
    server.proc.kill("SIGTERM");
    const deadline = Date.now() + 5000;
    while (!server.stderr().includes("no new connections") && Date.now() < deadline) await Bun.sleep(10);
    expect(
      await fetch(`${server.url}/healthz`).then(
        (r) => r.status,
        () => "refused",
      ),
    ).toBe("refused");
    sendRest();
    const answer = await posting;
    expect({ status: answer.status, success: ((await answer.json()) as { success: boolean }).success }).toEqual({ status: 200, success: true });
    expect(await server.proc.exited).toBe(0);
    expect(server.stderr()).toContain("formsvc: stopped\n");
    const listed = await runCli(["submissions", "list", "contact", "--db", server.db, "--json"]);
    expect(JSON.parse(listed.stdout).map((s: { data: unknown }) => s.data)).toEqual([{ name: "Ann" }]);
    expect(existsSync(server.db)).toBe(true);
  });
});
