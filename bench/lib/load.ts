// The load generator of the HTTP benches: autocannon, run by Node in a process of its own, so that the
// client's work never shares an event loop (or a profile) with the server it measures.
import { readFileSync } from "node:fs";
import { join } from "node:path";

const AUTOCANNON = join(import.meta.dir, "../../node_modules/autocannon/autocannon.js");

export interface Load {
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
  errors: number;
}

/** Runs autocannon against `url` for `seconds` with `connections` open; `body` makes it a JSON POST. */
export async function load(url: string, options: { connections: number; seconds: number; body?: string }): Promise<Load> {
  const args = ["-c", String(options.connections), "-d", String(options.seconds), "--json"];
  if (options.body !== undefined) {
    args.push("-m", "POST", "-H", "content-type=application/json", "-H", "accept=application/json", "-b", options.body);
  }
  const proc = Bun.spawn(["node", AUTOCANNON, ...args, url], { stdout: "pipe", stderr: "pipe" });
  const [out, code] = [await new Response(proc.stdout).text(), await proc.exited];
  if (code !== 0) throw new Error(`autocannon exited ${code}: ${await new Response(proc.stderr).text()}`);
  const result = JSON.parse(out) as {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number;
    non2xx: number;
    duration: number;
  };
  return {
    perSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    requests: result.requests.total,
    errors: result.errors + result.non2xx,
  };
}

/** A server process a bench started. */
export interface Started {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** CPU time (user + system, every thread) a process has used so far, in ms: from /proc, Linux only. */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Starts a bare Bun server in a process of its own: reads the JSON body and answers JSON, nothing stored. */
export function startBareServer(): Promise<Started> {
  return startScript("bare-server.ts");
}

/** Starts the durable floor (durable-floor.js) in a process of its own, on a fresh SQLite file `db`. */
export function startFloorServer(db: string): Promise<Started> {
  return startScript("durable-floor.js", { DB: db });
}

/** Runs a server script of this folder that prints its address on its first line of stdout. */
async function startScript(name: string, env: Record<string, string> = {}): Promise<Started> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, name)], { stdout: "pipe", stderr: "inherit", env: { ...process.env, ...env } });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  const url = new TextDecoder().decode(value).trim();
  return {
    url,
    pid: proc.pid,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
