import { Database } from "bun:sqlite";
import { newId } from "../../src/lib/ids.ts";
import { runCli, type RunResult } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

export type Mode = "local" | "remote";

/** A real server with an admin key, and the CLI run against it in either mode. */
export interface CliWorld {
  server: ServerProcess;
  key: string;
  /** Runs the CLI in `mode`: local on the server's database file, remote through its API with the key. */
  run(mode: Mode, args: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<RunResult>;
  /** Runs the same command in local and in remote mode, at once. */
  both(args: string[], options?: { env?: Record<string, string> }): Promise<[local: RunResult, remote: RunResult]>;
  /** Runs the CLI in local mode and fails the test unless it exits 0; returns stdout. */
  ok(args: string[]): Promise<string>;
  /** Posts one submission to the public endpoint, as a static site's fetch() would. */
  post(slug: string, data: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

export async function startWorld(): Promise<CliWorld> {
  const server = await startServerProcess({ args: ["--rate-limit", "0"] });
  const minted = await runCli(["keys", "create", "--db", server.db, "--name", "cli-tests"]);
  if (minted.code !== 0) throw new Error(`keys create failed: ${minted.stderr}`);
  const key = minted.stdout.trim();
  const world: CliWorld = {
    server,
    key,
    run(mode, args, { env = {}, stdin } = {}) {
      // Local mode is told nothing of the server: it builds links from the addresses the server recorded.
      const modeArgs = mode === "local" ? ["--db", server.db] : [];
      const modeEnv: Record<string, string> = mode === "local" ? {} : { FORMSVC_URL: server.url, FORMSVC_KEY: key };
      return runCli([...args, ...modeArgs], { env: { ...modeEnv, ...env }, stdin });
    },
    both: (args, options) => Promise.all([world.run("local", args, options), world.run("remote", args, options)]),
    async ok(args) {
      const result = await world.run("local", args);
      if (result.code !== 0) throw new Error(`formsvc ${args.join(" ")} exited ${result.code}: ${result.stderr}`);
      return result.stdout;
    },
    async post(slug, data) {
      const response = await fetch(`${server.url}/f/${slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(data),
      });
      if (response.status !== 200) throw new Error(`post to ${slug}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { id: string }).id;
    },
    stop: async () => void (await server.stop()),
  };
  return world;
}

/** Makes a form in local mode and returns its id. */
export async function makeForm(world: CliWorld, name: string, slug: string): Promise<string> {
  return JSON.parse(await world.ok(["forms", "create", "--name", name, "--slug", slug, "--json"])).id as string;
}

/**
 * Writes `count` submissions straight into the database file in one transaction (fast where posting each
 * would take minutes), one millisecond apart and ending a minute ago, with the form's counters and fields.
 */
export function seedSubmissions(dbPath: string, formId: string, count: number): void {
  const db = new Database(dbPath);
  db.exec("PRAGMA busy_timeout = 5000");
  const insert = db.prepare("INSERT INTO submissions (id, form_id, data, created_at, is_read, is_starred, is_spam) VALUES (?, ?, ?, ?, 0, 0, 0)");
  const start = Date.now() - 60_000 - count;
  db.transaction(() => {
    for (let i = 0; i < count; i++) {
      const data = { email: `user${i}@example.com`, name: `User ${i}`, message: `Hello, this is message number ${i}, with a comma and "quotes".` };
      insert.run(newId("submission", start + i), formId, JSON.stringify(data), start + i);
    }
    const fields = JSON.stringify(["email", "name", "message"]);
    db.prepare("UPDATE forms SET submission_count = submission_count + ?, unread_count = unread_count + ?, fields = ? WHERE id = ?").run(
      count,
      count,
      fields,
      formId,
    );
    // The day and minute counters the server keeps beside the form's, as it would have kept them.
    db.prepare(
      `INSERT INTO submission_days (form_id, day, submission_count, unread_count) SELECT form_id, created_at / 86400000, count(*), count(*) FROM submissions
       WHERE form_id = ? AND created_at >= ? GROUP BY created_at / 86400000 ORDER BY 2
       ON CONFLICT (form_id, day) DO UPDATE SET submission_count = submission_count + excluded.submission_count, unread_count = unread_count + excluded.unread_count`,
    ).run(formId, start);
    db.prepare(
      `INSERT INTO submission_minutes (form_id, minute, submission_count, unread_count) SELECT form_id, created_at / 60000, count(*), count(*) FROM submissions
       WHERE form_id = ? AND created_at >= ? GROUP BY created_at / 60000 ORDER BY 2
       ON CONFLICT (form_id, minute) DO UPDATE SET submission_count = submission_count + excluded.submission_count, unread_count = unread_count + excluded.unread_count`,
    ).run(formId, start);
  }).immediate();
  db.close();
}
