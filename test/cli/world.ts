import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadServeConfig, type ServeFlags } from "../../src/config.ts";
import { startServer } from "../../src/server.ts";
import type { RunResult } from "../helpers/cli.ts";
import { runInProcess } from "../helpers/fake-io.ts";

export type Mode = "local" | "remote";
export const MODES: readonly Mode[] = ["local", "remote"];

/**
 * The real server, started in this process on a free port and a temp file, with an admin key; and the CLI run
 * in this process against it in either mode (test/process/world.ts is the same world with both spawned).
 */
export interface CliWorld {
  server: { url: string; db: string; dir: string };
  key: string;
  /** Runs the CLI in `mode`: local on the server's database file, remote through its API with the key. */
  run(mode: Mode, args: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<RunResult>;
  /** Runs the same command in local and in remote mode. */
  both(args: string[], options?: { env?: Record<string, string> }): Promise<[local: RunResult, remote: RunResult]>;
  /** Runs the CLI in local mode and fails the test unless it exits 0; returns stdout. */
  ok(args: string[]): Promise<string>;
  /** Posts one submission to the public endpoint, as a static site's fetch() would. */
  post(slug: string, data: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** The real server (`startServer`, what `formsvc serve` runs), in this process, on a free port and a temp file. */
export interface InProcessServer {
  url: string;
  db: string;
  dir: string;
  stop(): Promise<void>;
}

/** Starts the server in this process with serve's flags (`rateLimit: "0"` and the like); its log is dropped. */
export async function startServerInProcess(flags: ServeFlags = {}): Promise<InProcessServer> {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-cli-"));
  const db = join(dir, "formsvc.db");
  const running = await startServer(loadServeConfig({ host: "127.0.0.1", port: "0", db, ...flags }, {}), { request() {}, error() {} });
  return {
    url: running.url,
    db,
    dir,
    async stop() {
      await running.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startWorld(flags: ServeFlags = {}): Promise<CliWorld> {
  const running = await startServerInProcess({ rateLimit: "0", ...flags });
  const { db } = running;
  const minted = await runInProcess(["keys", "create", "--db", db, "--name", "cli-tests"]);
  if (minted.code !== 0) throw new Error(`keys create failed: ${minted.stderr}`);
  const key = minted.stdout.trim();
  const server = { url: running.url, db, dir: running.dir };
  const world: CliWorld = {
    server,
    key,
    run(mode, args, { env = {}, stdin } = {}) {
      // Local mode is told nothing of the server: it builds links from the addresses the server recorded.
      const modeArgs = mode === "local" ? ["--db", db] : [];
      const modeEnv: Record<string, string> = mode === "local" ? {} : { FORMSVC_URL: server.url, FORMSVC_KEY: key };
      return runInProcess([...args, ...modeArgs], { env: { ...modeEnv, ...env }, stdin });
    },
    // One after the other: in one process, the local command's synchronous SQLite calls would wait on the server.
    both: async (args, options) => [await world.run("local", args, options), await world.run("remote", args, options)],
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
    stop: () => running.stop(),
  };
  return world;
}

/** Makes a form in local mode and returns its id. */
export async function makeForm(world: CliWorld, name: string, slug: string): Promise<string> {
  return JSON.parse(await world.ok(["forms", "create", "--name", name, "--slug", slug, "--json"])).id as string;
}

/** Writes submissions straight into the database file (test/process/world.ts, which the benchmarks share). */
export { seedSubmissions } from "../process/world.ts";
