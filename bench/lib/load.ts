// The load generator of the HTTP benches: autocannon, run by Node in a process of its own, so that the
// client's work never shares an event loop (or a profile) with the server it measures.
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

/** Starts a bare Bun server in a process of its own: reads the JSON body and answers JSON, nothing stored. */
export async function startBareServer(): Promise<{ url: string; stop(): Promise<void> }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "bare-server.ts")], { stdout: "pipe", stderr: "inherit" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  const url = new TextDecoder().decode(value).trim();
  return {
    url,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}
