// Start-up of the compiled binary against a bare compiled Bun program (the floor), built and measured in the
// same run: `version`, a local `forms list` on a tiny database, a local `submissions list --since 24h` on a
// form of 10,000 submissions, `serve` from spawn to its first HTTP answer, and serve's resident memory once
// idle. Each figure is the median of five runs, taken in turns with the floor's, and printed as a ratio to
// it; the targets are those of the binary alone. Prints figures; asserts nothing. Bounded: well under a minute.
// Run: bun bench/startup.ts (BENCH_RUNS=5, BENCH_BINARY=dist/formsvc to measure a binary already built).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../test/helpers/cli.ts";
import { seedSubmissions } from "../test/cli/world.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-startup-"));
const ENV = { PATH: "/usr/bin:/bin", HOME: dir };

// The floor: what any compiled Bun program costs to start, print a line, or answer one route.
const FLOOR_SOURCE = `
const [command, port] = process.argv.slice(2);
if (command === "serve") Bun.serve({ hostname: "127.0.0.1", port: Number(port), fetch: () => Response.json({ status: "ok" }) });
else console.log("floor 0.0.0");
`;

async function run(argv: string[], what: string): Promise<void> {
  const proc = Bun.spawn(argv, { cwd: dir, env: ENV, stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`${what} exited ${code}: ${stderr}`);
}

/** Milliseconds from spawn to exit of one command, its output read as a pipe reader would. */
async function timed(argv: string[]): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: dir, env: ENV, stdout: "pipe", stderr: "pipe" });
  const [, , code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).text(), proc.exited]);
  const ms = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.slice(1).join(" ")} exited ${code}`);
  return ms;
}

/** A port free right now (taken and let go). */
function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

/** The resident memory of a live process, in bytes (Linux). */
function rss(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match ? Number(match[1]) * 1024 : NaN;
}

/** Spawns a server, polls /healthz in a tight loop until it answers 200, then lets it idle and reads its RSS. */
async function serveOnce(argv: (port: number) => string[]): Promise<{ ms: number; rss: number }> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn(argv(port), { cwd: dir, env: ENV, stdout: "ignore", stderr: "ignore" });
  let ms = NaN;
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`${argv(port).join(" ")} exited ${proc.exitCode}`);
      try {
        const response = await fetch(`http://127.0.0.1:${port}/healthz`);
        await response.arrayBuffer();
        if (response.status === 200) {
          ms = performance.now() - started;
          break;
        }
      } catch {
        // Not listening yet.
      }
    }
    await Bun.sleep(500);
    return { ms, rss: rss(proc.pid) };
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

try {
  const began = performance.now();
  const binary = process.env.BENCH_BINARY ?? join(dir, "formsvc");
  if (!process.env.BENCH_BINARY) await run([process.execPath, join(ROOT, "scripts", "build.ts"), "--outfile", binary], "build");
  const floorSource = join(dir, "floor.ts");
  writeFileSync(floorSource, FLOOR_SOURCE);
  const floor = join(dir, "floor");
  await run([process.execPath, "build", "--compile", "--minify", floorSource, "--outfile", floor], "floor build");

  const tiny = join(dir, "tiny.db");
  await run([binary, "forms", "create", "--name", "Contact", "--slug", "contact", "--db", tiny], "forms create");
  const big = join(dir, "big.db");
  await run([binary, "forms", "create", "--name", "Big", "--slug", "big", "--db", big], "forms create");
  const bigForm = new (await import("bun:sqlite")).Database(big, { readonly: true }).prepare("SELECT id FROM forms").get() as { id: string };
  seedSubmissions(big, bigForm.id, 10_000);

  const cases: { name: string; target: string; limit: number; binary: () => Promise<number>; floor: () => Promise<number>; unit: "ms" | "MB" }[] = [];
  const cli = (name: string, limit: number, args: string[]) =>
    cases.push({ name, target: `≤ ${limit} ms`, limit, unit: "ms", binary: () => timed([binary, ...args]), floor: () => timed([floor]) });
  cli("version", 30, ["version"]);
  cli("forms list (local, tiny db)", 50, ["forms", "list", "--db", tiny]);
  cli("submissions list --since 24h (local, 10k rows)", Infinity, ["submissions", "list", "big", "--since", "24h", "--db", big]);

  // One untimed run of each first: the page cache, not the program, decides a first start.
  for (const c of cases) await Promise.all([c.binary(), c.floor()]);
  const figures = new Map<string, { binary: number[]; floor: number[] }>();
  for (const c of cases) {
    const f = { binary: [] as number[], floor: [] as number[] };
    for (let i = 0; i < RUNS; i++) {
      f.floor.push(await c.floor());
      f.binary.push(await c.binary());
    }
    figures.set(c.name, f);
  }
  const serve = { binary: [] as { ms: number; rss: number }[], floor: [] as { ms: number; rss: number }[] };
  await serveOnce((port) => [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--db", tiny]);
  for (let i = 0; i < RUNS; i++) {
    serve.floor.push(await serveOnce((port) => [floor, "serve", String(port)]));
    serve.binary.push(await serveOnce((port) => [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--db", tiny]));
  }
  figures.set("serve to first answer (/healthz)", { binary: serve.binary.map((s) => s.ms), floor: serve.floor.map((s) => s.ms) });
  figures.set("serve idle RSS", { binary: serve.binary.map((s) => s.rss / 1_048_576), floor: serve.floor.map((s) => s.rss / 1_048_576) });
  const targets: Record<string, [string, number]> = {
    version: ["≤ 30 ms", 30],
    "forms list (local, tiny db)": ["≤ 50 ms", 50],
    "submissions list --since 24h (local, 10k rows)": ["", Infinity],
    "serve to first answer (/healthz)": ["≤ 50 ms", 50],
    "serve idle RSS": ["≤ 40 MB", 40],
  };

  console.log(`startup: compiled binary against a bare compiled Bun program, median of ${RUNS} runs each (Bun ${Bun.version})`);
  const rows = [["what", "floor", "formsvc", "ratio", "target", ""]];
  for (const [name, f] of figures) {
    const unit = name.endsWith("RSS") ? " MB" : " ms";
    const [target, limit] = targets[name]!;
    const b = median(f.binary);
    const fl = median(f.floor);
    rows.push([name, `${fl.toFixed(1)}${unit}`, `${b.toFixed(1)}${unit}`, `${(b / fl).toFixed(2)}x`, target, target ? (b <= limit ? "met" : "MISSED") : ""]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows) console.log(`  ${r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join("  ").trimEnd()}`);
  console.log(`  runs (formsvc, ms or MB): ${[...figures].map(([name, f]) => `${name.split(" ")[0]} ${f.binary.map((v) => v.toFixed(0)).join("/")}`).join("; ")}`);
  console.log(`  whole bench ${((performance.now() - began) / 1000).toFixed(1)} s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
