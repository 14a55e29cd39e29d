// What the benches of the compiled binary share: building it (or taking BENCH_BINARY) and a floor program beside
// it, a free port, and a live process's memory from the kernel.
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { ROOT } from "../../test/helpers/cli.ts";

/** Runs a command in `dir` to its end, and gives its stdout; throws with its stderr when it fails. */
export async function run(dir: string, argv: string[], what: string): Promise<string> {
  const proc = Bun.spawn(argv, { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir }, stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${what} exited ${code}: ${err}`);
  return out;
}

/** The binary to measure (BENCH_BINARY, else built into `dir`) and the floor program compiled from `floorSource`. */
export async function compiledPair(dir: string, floorSource: string): Promise<{ binary: string; floor: string }> {
  const binary = process.env.BENCH_BINARY ? resolve(process.env.BENCH_BINARY) : join(dir, "formsvc");
  if (!process.env.BENCH_BINARY) await run(dir, [process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", binary], "build");
  writeFileSync(join(dir, "floor.ts"), floorSource);
  const floor = join(dir, "floor");
  await run(dir, [process.execPath, "build", "--compile", "--minify", join(dir, "floor.ts"), "--outfile", floor], "floor build");
  return { binary, floor };
}

/** A port free right now (taken and let go). */
export function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** VmRSS (resident now) or VmHWM (its high-water mark) of a live process, in MB. */
export function memoryMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number {
  const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}
