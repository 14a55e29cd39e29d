// Public ingest over a real socket, three servers measured in the same run, each in a process of its own, with
// the load generator (autocannon, under Node) in another: a bare Bun server that reads the body and answers the
// same JSON (what Bun itself does), the durable floor (bench/lib/durable-floor.js: one insert per post, group
// commit, answer after COMMIT with synchronous=FULL, nothing else), and formsvc (every answer means the row and
// its counters are committed with synchronous=FULL).
// Targets: formsvc ≥ 0.6 of the floor's posts/s at 32 connections, with p99 ≤ 10 ms. Beside each figure: the
// load average at that moment, and the server's CPU time per post (user + system, from /proc), which moves far
// less than throughput on a shared machine. Prints figures; asserts nothing.
// Bounded: BENCH_SECONDS (default 5) per server, plus a 1 s warm-up each: about 25 s in all.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { cpuMs, load, startBareServer, startFloorServer, type Load } from "./lib/load.ts";
import { machineLine } from "./lib/machine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY ?? 32);
const body = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });

interface Measured extends Load {
  /** CPU time of the server process per answered post, µs. */
  cpuPerPost: number;
  /** The 1-minute load average when the measurement ended. */
  loadAverage: number;
}

/** A 1 s warm-up, then the measured run, with the server's CPU time over it. */
async function measure(url: string, pid: number): Promise<Measured> {
  await load(url, { connections: CONNECTIONS, seconds: 1, body });
  const before = cpuMs(pid);
  const figures = await load(url, { connections: CONNECTIONS, seconds: SECONDS, body });
  const used = cpuMs(pid) - before;
  return { ...figures, cpuPerPost: (used * 1000) / Math.max(1, figures.requests), loadAverage: loadavg()[0]! };
}

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
const server = await startServerProcess({ db: join(dir, "bench.db"), args: ["--rate-limit", "0"] });
try {
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const created = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", slug: "bench", notificationEmail: "owner@example.com" }),
  });
  if (created.status !== 201) throw new Error(await created.text());

  console.log(machineLine());
  const bare = await startBareServer();
  const baseline = await measure(bare.url, bare.pid);
  await bare.stop();
  const floorServer = await startFloorServer(join(dir, "floor.db"));
  const floor = await measure(floorServer.url, floorServer.pid);
  await floorServer.stop();
  const formsvc = await measure(`${server.url}/f/bench`, server.proc.pid);

  // Every answered post must be a stored row: the figure counts durable submissions, nothing less.
  const db = new Database(server.db, { readonly: true });
  const stored = (db.prepare("SELECT submission_count AS n FROM forms WHERE slug = 'bench'").get() as { n: number }).n;
  db.close();

  const fmt = (r: Measured) =>
    `${r.perSecond.toFixed(0).padStart(6)} posts/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.cpuPerPost.toFixed(0)} µs CPU/post, ${r.errors} errors (load ${r.loadAverage.toFixed(2)})`;
  console.log(`ingest: JSON posts of three fields, ${CONNECTIONS} connections, ${SECONDS} s each (autocannon in its own process)`);
  console.log(`  bare Bun.serve (parse, answer):                  ${fmt(baseline)}`);
  console.log(`  durable floor (insert, group commit, FULL sync): ${fmt(floor)}`);
  console.log(`  formsvc (answer after COMMIT, FULL sync):        ${fmt(formsvc)}; ${stored} rows stored in all`);
  console.log(
    `  formsvc / floor: ${(formsvc.perSecond / floor.perSecond).toFixed(3)} (target ≥ 0.6); formsvc / bare: ${(formsvc.perSecond / baseline.perSecond).toFixed(3)}; p99 ${formsvc.p99} ms (target ≤ 10)`,
  );
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
