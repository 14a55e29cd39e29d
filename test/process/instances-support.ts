import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";

/**
 * Several `formsvc serve` processes on one database (a SQLite file, or the same file through the libSQL
 * driver's file: URL), with a real SMTP server and a real webhook receiver on loopback.
 */
export interface Cluster {
  /** What every instance is given as --db. */
  db: string;
  servers: ServerProcess[];
  smtp: SmtpSink;
  receiver: Receiver;
  /** Starts one more instance on the database (and keeps it for close()). */
  start(): Promise<ServerProcess>;
  close(): Promise<void>;
}

// A short lease brings an item a killed instance held back within three seconds; the senders' timeouts stay
// long (their defaults), so that a receiver slowed by a busy machine is never taken for a failed one (and sent
// the same event again).
const ENV = { FORMSVC_OUTBOX_LEASE_MS: "3000", FORMSVC_MAIL_RETRY_BASE_MS: "200" };

/** Starts `count` instances at once on a new database, as a service manager would start them. */
export async function startCluster(count: number, driver: "sqlite" | "libsql"): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-instances-"));
  const file = join(dir, "formsvc.db");
  const db = driver === "libsql" ? `file:${file}` : file;
  const smtp = await startSmtpSink();
  const receiver = startReceiver();
  const args = ["--rate-limit", "0", "--smtp-url", smtp.url, "--webhooks-allow-private", "--webhook-retry-scale", "0.001"];
  const servers: ServerProcess[] = [];
  const start = async () => {
    const server = await startServerProcess({ db, args, env: ENV });
    servers.push(server);
    return server;
  };
  await Promise.all(Array.from({ length: count }, start));
  return {
    db,
    servers,
    smtp,
    receiver,
    start,
    async close() {
      for (const server of servers) {
        if (server.proc.exitCode === null && !server.proc.killed) await server.stop();
        rmSync(server.dir, { recursive: true, force: true });
      }
      await smtp.stop();
      receiver.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The owner's side: a key made with the local CLI, and the management API of any instance. */
export async function ownerOf(cluster: Cluster) {
  const minted = await runCli(["keys", "create", "--db", cluster.db]);
  expect({ code: minted.code, stderr: minted.stderr }).toEqual({ code: 0, stderr: expect.any(String) });
  const key = minted.stdout.trim();
  const api = async <T>(url: string, method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const answer = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(answer.status).toBeLessThan(300);
    return (await answer.json()) as T;
  };
  return { key, api };
}

/** Polls `look` (bounded) until `done` holds for what it found. */
export async function until<T>(look: () => Promise<T>, done: (found: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await look();
    if (done(found)) return found;
    if (Date.now() > deadline) throw new Error(`never got there: ${JSON.stringify(found).slice(0, 2000)}`);
    await Bun.sleep(50);
  }
}

/** How many times each value occurs. */
export function tally(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}
