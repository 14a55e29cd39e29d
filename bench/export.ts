// Memory of `formsvc submissions export` as the count grows: the CLI process's peak RSS exporting 2k,
// 50k and 200k submissions, in local and remote mode, and the server's peak while it streams them. Every
// figure is printed as a ratio against the smallest export of the same run, on the same machine: a
// constant-memory export keeps the RSS ratio near 1 while the row ratio is 25 and 100.
// Prints figures; asserts nothing. Run: bun bench/export.ts (BENCH_COUNTS=2000,50000,200000 to change).
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { seedSubmissions } from "../test/cli/world.ts";

const COUNTS = (process.env.BENCH_COUNTS ?? "2000,50000,200000").split(",").map(Number);
const FORMATS = ["csv", "ndjson"] as const;

/** The high-water mark of a live process's resident memory, in bytes (Linux). */
function peakRss(pid: number): number | null {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

interface Run {
  rows: number;
  seconds: number;
  peakRss: number;
  bytes: number;
}

/** Runs one export as its own process, reading its stdout as a pipe reader would, and counts the lines. */
async function exportOnce(args: string[], env: Record<string, string>, format: string): Promise<Run> {
  const started = performance.now();
  const proc = Bun.spawn([process.execPath, CLI, "submissions", "export", ...args, "--format", format], {
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let lines = 0;
  let bytes = 0;
  for await (const chunk of proc.stdout as ReadableStream<Uint8Array>) {
    bytes += chunk.byteLength;
    for (const byte of chunk) if (byte === 10) lines++;
  }
  const code = await proc.exited;
  if (code !== 0) throw new Error(`export exited ${code}: ${await new Response(proc.stderr).text()}`);
  // CSV rows here have no line breaks inside cells, so lines minus the header are the rows.
  return { rows: format === "csv" ? lines - 1 : lines, seconds: (performance.now() - started) / 1000, peakRss: proc.resourceUsage()!.maxRSS, bytes };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-export-"));
const server = await startServerProcess({ db: join(dir, "bench.db"), args: ["--rate-limit", "0"] });
try {
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const formId = async (slug: string) =>
    JSON.parse((await runCli(["forms", "create", "--name", slug, "--slug", slug, "--json", "--db", server.db])).stdout).id as string;
  for (const count of COUNTS) seedSubmissions(server.db, await formId(`n${count}`), count);

  const modes = { local: { env: {}, args: ["--db", server.db] }, remote: { env: { FORMSVC_URL: server.url, FORMSVC_KEY: key }, args: [] } };
  const idle = await exportOnce([`n${COUNTS[0]}`, ...modes.local.args, "--since", "2999-01-01"], {}, "ndjson");
  const counts = COUNTS.map((n) => n.toLocaleString("en-US")).join(", ");
  const rowRatios = COUNTS.slice(1).map((n) => (n / COUNTS[0]!).toFixed(0)).join(" and ");
  console.log(`export: peak RSS of the process while exporting ${counts} submissions (row ratios ${rowRatios} against the first)`);
  console.log(`  baseline: the CLI exporting 0 rows peaks at ${mb(idle.peakRss)}`);
  for (const format of FORMATS) {
    for (const [mode, { env, args }] of Object.entries(modes)) {
      const runs: Run[] = [];
      const serverPeaks: (number | null)[] = [];
      for (const count of COUNTS) {
        const run = await exportOnce([`n${count}`, ...args], env, format);
        if (run.rows !== count) throw new Error(`${mode} ${format}: exported ${run.rows} rows of ${count}`);
        runs.push(run);
        serverPeaks.push(peakRss(server.proc.pid));
      }
      const ratios = (values: number[]) => values.slice(1).map((v) => (v / values[0]!).toFixed(3)).join(", ");
      const peaks = runs.map((r) => r.peakRss);
      console.log(`  ${mode} ${format} (row counts match):`);
      console.log(`    CLI peak RSS ${peaks.map(mb).join(", ")}: ratios ${ratios(peaks)}`);
      console.log(`    time ${runs.map((r) => `${r.seconds.toFixed(2)} s`).join(", ")}: ratios ${ratios(runs.map((r) => r.seconds))}; ${Math.round(runs.at(-1)!.rows / runs.at(-1)!.seconds).toLocaleString("en-US")} rows/s at the largest`);
      if (mode === "remote" && serverPeaks.every((p) => p !== null)) {
        // VmHWM only ever rises: later figures include everything the server did before.
        console.log(`    server peak RSS after each export ${(serverPeaks as number[]).map(mb).join(", ")}: ratios ${ratios(serverPeaks as number[])}`);
      }
    }
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
