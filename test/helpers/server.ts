import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "./cli.ts";

/** A real `formsvc serve` process on a free port. */
export interface ServerProcess {
  url: string;
  db: string;
  dir: string;
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything the server wrote to stderr so far. */
  stderr(): string;
  stop(signal?: NodeJS.Signals | number): Promise<number>;
}

/** Starts `formsvc serve --port 0` on `db` (a fresh temp file by default) and waits until it listens. */
export async function startServerProcess(options: { db?: string; args?: string[]; env?: Record<string, string>; cwd?: string } = {}): Promise<ServerProcess> {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-server-"));
  const db = options.db ?? join(dir, "formsvc.db");
  const proc = Bun.spawn([process.execPath, CLI, "serve", "--host", "127.0.0.1", "--port", "0", "--db", db, ...(options.args ?? [])], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env },
    stdout: "ignore",
    stderr: "pipe",
    cwd: options.cwd,
  });
  let err = "";
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const url = await new Promise<string>((resolve, reject) => {
    const pump = async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return reject(new Error(`server exited before listening:\n${err}`));
        err += decoder.decode(value);
        const found = /listening on \S+, (http:\/\/\S+)/.exec(err);
        if (found) {
          resolve(found[1]!);
          break;
        }
      }
      // Keep draining so that the server never blocks on a full pipe.
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        err += decoder.decode(value);
      }
    };
    void pump();
  });
  return {
    url,
    db,
    dir,
    proc,
    stderr: () => err,
    async stop(signal = "SIGTERM") {
      proc.kill(signal);
      return proc.exited;
    },
  };
}
