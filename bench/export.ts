// Export throughput and memory as the count grows: `formsvc submissions export` of 100,000 and 1,000,000
// submissions (BENCH_COUNTS), CSV and NDJSON, through the local CLI, the remote CLI and the API itself (curl),
// each a process of its own, with its peak RSS. Baselines of the same run: a bare Bun process that reads the
// same rows with bun:sqlite and writes their data (what reading and writing cost with no formatting at all),
// and the CLI's own peak RSS exporting nothing.
// Targets: ≥ 300,000 rows/s CSV and NDJSON, API and local CLI; peak RSS ≤ 100 MB, the same at 100k and 1M.
// Prints figures; asserts nothing. Run: bun bench/export.ts
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI, runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { seedForm } from "./lib/seed.ts";
import { machineLine } from "./lib/machine.ts";

const COUNTS = (process.env.BENCH_COUNTS ?? "100000,1000000").split(",").map(Number);
const FORMATS = ["csv", "ndjson"] as const;

/** The high-water mark of a live process's resident memory, in bytes (Linux). */
function peakRss(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) * 1024;
}

interface Run {
  rows: number;
  seconds: number;
  peakRss: number | null;
}

/** Runs `command` with its stdout piped into `wc -l` (another process reads, as a real pipe would). */
async function piped(command: string[], env: Record<string, string> = {}): Promise<{ lines: number; seconds: number; peakRss: number | null }> {
  const started = performance.now();
  const proc = Bun.spawn(command, { env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdout: "pipe", stderr: "pipe" });
  const wc = Bun.spawn(["wc", "-l"], { stdin: proc.stdout, stdout: "pipe" });
  const [code, out] = [await proc.exited, await new Response(wc.stdout).text()];
  const seconds = (performance.now() - started) / 1000;
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${await new Response(proc.stderr).text()}`);
  return { lines: Number(out.trim()), seconds, peakRss: proc.resourceUsage()?.maxRSS ?? null };
}

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const perSecond = (run: Run) => Math.round(run.rows / run.seconds);

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-export-"));
const db = join(dir, "bench.db");
const key = (await runCli(["keys", "create", "--db", db])).stdout.trim();
const kept: Record<number, number> = {};
for (const count of COUNTS) {
  const formId = JSON.parse((await runCli(["forms", "create", "--name", `n${count}`, "--slug", `n${count}`, "--json", "--db", db])).stdout).id as string;
  kept[count] = seedForm(db, formId, count).counts.all;
}
const server = await startServerProcess({ db });
try {
  // The bare read: the same rows, the same order and index, their data written as lines, nothing formatted.
  const bare = join(dir, "bare.ts");
  writeFileSync(
    bare,
    `import { Database } from "bun:sqlite";
const db = new Database(process.argv[2], { readonly: true });
const form = db.prepare("SELECT id FROM forms WHERE slug = ?").get(process.argv[3]);
let out = "";
for (const row of db.prepare("SELECT id, data, created_at, is_read, is_starred, is_spam FROM submissions WHERE form_id = ? AND is_spam = 0 ORDER BY created_at DESC, id DESC").iterate(form.id)) {
  out += row.data + "\\n";
  if (out.length > 65536) { await Bun.write(Bun.stdout, out); out = ""; }
}
await Bun.write(Bun.stdout, out);
`,
  );
  const idle = await piped([process.execPath, CLI, "submissions", "export", `n${COUNTS[0]}`, "--db", db, "--since", "2999-01-01"]);
  console.log(
    `export: ${COUNTS.map((n) => n.toLocaleString("en-US")).join(" and ")} submissions seeded (${COUNTS.map((n) => kept[n]!.toLocaleString("en-US")).join(" and ")} not spam, the export's default)`,
  );
  console.log(`  baseline RSS: the CLI exporting 0 rows peaks at ${mb(idle.peakRss!)}`);
  const baselines: Record<number, Run> = {};
  for (const count of COUNTS) {
    const run = await piped([process.execPath, bare, db, `n${count}`]);
    baselines[count] = { rows: run.lines, seconds: run.seconds, peakRss: run.peakRss };
    console.log(
      `  baseline read (bare bun:sqlite, data only) ${count.toLocaleString("en-US")}: ${perSecond(baselines[count]!).toLocaleString("en-US")} rows/s, peak RSS ${mb(run.peakRss!)}`,
    );
  }
  const serverPeaks: string[] = [];
  for (const format of FORMATS) {
    const ways: Record<string, (count: number) => Promise<Run>> = {
      "local CLI": async (count) => {
        const r = await piped([process.execPath, CLI, "submissions", "export", `n${count}`, "--db", db, "--format", format]);
        return { rows: format === "csv" ? r.lines - 1 : r.lines, seconds: r.seconds, peakRss: r.peakRss };
      },
      "remote CLI": async (count) => {
        const r = await piped([process.execPath, CLI, "submissions", "export", `n${count}`, "--format", format], { FORMSVC_URL: server.url, FORMSVC_KEY: key });
        return { rows: format === "csv" ? r.lines - 1 : r.lines, seconds: r.seconds, peakRss: r.peakRss };
      },
      API: async (count) => {
        const url = `${server.url}/api/forms/n${count}/submissions/export?format=${format}`;
        const r = await piped(["curl", "-sfS", "-H", `Authorization: Bearer ${key}`, url]);
        return { rows: format === "csv" ? r.lines - 1 : r.lines, seconds: r.seconds, peakRss: peakRss(server.proc.pid) };
      },
    };
    for (const [way, run] of Object.entries(ways)) {
      const figures: string[] = [];
      for (const count of COUNTS) {
        const result = await run(count);
        if (result.rows !== kept[count]) throw new Error(`${way} ${format}: exported ${result.rows} rows of ${kept[count]}`);
        const ratio = perSecond(result) / perSecond(baselines[count]!);
        const rss = way === "API" ? `server peak RSS so far ${mb(result.peakRss!)}` : `peak RSS ${mb(result.peakRss!)}`;
        figures.push(`${count.toLocaleString("en-US")}: ${perSecond(result).toLocaleString("en-US")} rows/s (${ratio.toFixed(2)} of the bare read), ${rss}`);
        if (way === "API") serverPeaks.push(mb(result.peakRss!));
      }
      console.log(`  ${way} ${format} (row counts match):\n    ${figures.join("\n    ")}`);
    }
  }
  console.log("  targets: ≥ 300,000 rows/s; peak RSS ≤ 100 MB, flat from 100k to 1M (VmHWM of the server only ever rises)");
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
