// Start-up of the compiled binary against a bare compiled Bun program (the floor), built and measured in the
// same run: `version`, a local `forms list` on a tiny database, a local `submissions list --since 24h` on a
// form of 10,000 submissions, `serve` from spawn to its first HTTP answer, and serve's resident memory once
// idle (on a database with no dashboard user, whose every start writes a setup link, and on one with a user).
// Each figure is the median of five runs, taken in turns with the floor's, and printed as a ratio to
// it. Wall time is what a user waits; CPU time (user + system, all threads) is printed beside it because it
// moves less when other work shares the machine. Prints figures; asserts nothing. Bounded: about 10 s.
// Run: bun bench/startup.ts (BENCH_RUNS=5; BENCH_BINARY=dist/formsvc measures a binary already built).
import { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedSubmissions } from "../test/process/world.ts";
import { compiledPair, freePort, memoryMb, run } from "./lib/compiled.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-startup-"));
const ENV = { PATH: "/usr/bin:/bin", HOME: dir };

// The floor: what any compiled Bun program costs to start and print a line, or to answer one route.
const FLOOR_SOURCE = `
const [command, port] = process.argv.slice(2);
if (command === "serve") Bun.serve({ hostname: "127.0.0.1", port: Number(port), fetch: () => Response.json({ status: "ok" }) });
else console.log("floor 0.0.0");
`;

/** One measurement: milliseconds of wall time and of CPU time, or megabytes for memory. */
interface Sample {
  wall: number;
  cpu: number;
}

/** One command from spawn to exit, its output read as a pipe reader would. */
async function timed(argv: string[]): Promise<Sample> {
  const started = performance.now();
  const proc = Bun.spawn(argv, { cwd: dir, env: ENV, stdout: "pipe", stderr: "pipe" });
  const [, stderr, code] = await Promise.all([new Response(proc.stdout).arrayBuffer(), new Response(proc.stderr).text(), proc.exited]);
  const wall = performance.now() - started;
  if (code !== 0) throw new Error(`${argv.slice(1).join(" ")} exited ${code}: ${stderr}`);
  const { user, system } = proc.resourceUsage()!.cpuTime;
  return { wall, cpu: Number(user + system) / 1000 };
}

/** CPU time a live process has used so far, all its threads, in milliseconds (Linux schedstat, in ns). */
function cpuSoFar(pid: number): number {
  let ns = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0]);
  return ns / 1e6;
}

/** Spawns a server, polls /healthz in a tight loop until it answers 200, lets it idle half a second, reads its RSS. */
async function serveOnce(argv: (port: number) => string[]): Promise<{ answer: Sample; rss: number }> {
  const port = freePort();
  const started = performance.now();
  const proc = Bun.spawn(argv(port), { cwd: dir, env: ENV, stdout: "ignore", stderr: "ignore" });
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`${argv(port).join(" ")} exited ${proc.exitCode}`);
      const response = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
      if (response?.status === 200) {
        const answer = { wall: performance.now() - started, cpu: cpuSoFar(proc.pid) };
        await response.arrayBuffer();
        await Bun.sleep(500);
        return { answer, rss: memoryMb(proc.pid) };
      }
    }
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
  const { binary, floor } = await compiledPair(dir, FLOOR_SOURCE);

  // A tiny database, and one with a form of 10,000 submissions written straight into the file.
  const tiny = join(dir, "tiny.db");
  await run(dir, [binary, "forms", "create", "--name", "Contact", "--slug", "contact", "--db", tiny], "forms create");
  const big = join(dir, "big.db");
  await run(dir, [binary, "forms", "create", "--name", "Big", "--slug", "big", "--db", big], "forms create");
  const bigDb = new Database(big, { readonly: true });
  const { id: bigForm } = bigDb.prepare("SELECT id FROM forms").get() as { id: string };
  bigDb.close();
  seedSubmissions(big, bigForm, 10_000);

  const rows: { what: string; target?: number; unit: "ms" | "MB"; binary: Sample[]; floor: Sample[] }[] = [];
  const commands: [string, number | undefined, string[]][] = [
    ["version", 30, ["version"]],
    ["forms list (local, tiny db)", 50, ["forms", "list", "--db", tiny]],
    ["submissions list --since 24h (local, 10k rows)", undefined, ["submissions", "list", "big", "--since", "24h", "--db", big]],
  ];
  for (const [what, target, args] of commands) {
    // One untimed run of each first: the page cache, not the program, decides a first start.
    await timed([binary, ...args]);
    await timed([floor]);
    const row = { what, target, unit: "ms" as const, binary: [] as Sample[], floor: [] as Sample[] };
    for (let i = 0; i < RUNS; i++) {
      row.floor.push(await timed([floor]));
      row.binary.push(await timed([binary, ...args]));
    }
    rows.push(row);
  }
  // A database whose owner uses the dashboard: a restart writes nothing (a database with no dashboard user
  // gets a new one-time setup link, a write, at every start).
  const used = join(dir, "used.db");
  await run(dir, [binary, "forms", "create", "--name", "Contact", "--slug", "contact", "--db", used], "forms create");
  const user = Bun.spawn([binary, "users", "create", "owner@example.com", "--password-stdin", "--db", used], {
    cwd: dir,
    env: ENV,
    stdin: new Blob(["correct horse battery staple\n"]),
    stdout: "ignore",
    stderr: "pipe",
  });
  if ((await user.exited) !== 0) throw new Error(`users create exited ${user.exitCode}: ${await new Response(user.stderr).text()}`);

  // A restart as systemd does it: the same database and the same public address as the start before.
  for (const [label, db] of [
    ["", tiny],
    [", db with a dashboard user", used],
  ] as const) {
    const serveArgs = (port: number) => [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--base-url", "https://forms.example.com", "--db", db];
    await serveOnce(serveArgs);
    const served = { binary: [] as Awaited<ReturnType<typeof serveOnce>>[], floor: [] as Awaited<ReturnType<typeof serveOnce>>[] };
    for (let i = 0; i < RUNS; i++) {
      served.floor.push(await serveOnce((port) => [floor, "serve", String(port)]));
      served.binary.push(await serveOnce(serveArgs));
    }
    rows.push({
      what: `serve to first answer (/healthz)${label}`,
      target: 50,
      unit: "ms",
      binary: served.binary.map((s) => s.answer),
      floor: served.floor.map((s) => s.answer),
    });
    const memory = (s: { rss: number }) => ({ wall: s.rss, cpu: NaN });
    rows.push({ what: `serve idle RSS${label}`, target: 40, unit: "MB", binary: served.binary.map(memory), floor: served.floor.map(memory) });
  }

  const what = process.env.BENCH_BINARY ?? "formsvc as npm run build makes it";
  console.log(`startup: ${what}, against a bare compiled Bun program (the floor); median of ${RUNS} runs each, Bun ${Bun.version}`);
  const table = [["", "floor", "formsvc", "ratio", "target", "", "CPU floor", "CPU formsvc", "ratio"]];
  for (const row of rows) {
    const [b, f] = [median(row.binary.map((s) => s.wall)), median(row.floor.map((s) => s.wall))];
    const [bc, fc] = [median(row.binary.map((s) => s.cpu)), median(row.floor.map((s) => s.cpu))];
    const cpu = Number.isNaN(bc) ? ["", "", ""] : [`${fc.toFixed(1)} ms`, `${bc.toFixed(1)} ms`, `${(bc / fc).toFixed(2)}x`];
    const target = row.target === undefined ? ["", ""] : [`≤ ${row.target} ${row.unit}`, b <= row.target ? "met" : "MISSED"];
    table.push([row.what, `${f.toFixed(1)} ${row.unit}`, `${b.toFixed(1)} ${row.unit}`, `${(b / f).toFixed(2)}x`, ...target, ...cpu]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  for (const r of table)
    console.log(
      `  ${r
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
        .join("  ")
        .trimEnd()}`,
    );
  console.log(
    `  each run of formsvc: ${rows.map((r) => `${r.what.split(" ")[0]}${r.unit === "MB" ? " RSS" : ""}${r.what.includes("dashboard user") ? " (user)" : ""} ${r.binary.map((s) => s.wall.toFixed(0)).join("/")}`).join("; ")}`,
  );
  console.log(`  whole bench ${((performance.now() - began) / 1000).toFixed(1)} s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
