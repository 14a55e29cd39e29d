// Public ingest with 1, 2 and 3 `formsvc serve` processes on one database file, against a bare Bun server
// measured in the same run. Each instance gets its share of the connections from an autocannon process of its
// own (what a load balancer in front would spread), all at once; posts/s are summed, p99 is the worst of them.
// BENCH_DRIVER=libsql runs the instances on the libSQL driver (a file: URL) instead of bun:sqlite.
// Prints figures; asserts nothing. Bounded: BENCH_SECONDS (default 5) per case, plus a 1 s warm-up each.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../test/helpers/server.ts";
import { load, startBareServer, type Load } from "./lib/load.ts";
import { machineLine } from "./lib/machine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY ?? 48);
const DRIVER = process.env.BENCH_DRIVER === "libsql" ? "libsql" : "sqlite";
const body = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });

/** Loads every URL at once, CONNECTIONS shared between them; the sum of posts/s and the worst p99. */
async function loadAll(urls: string[], seconds: number): Promise<Load> {
  const connections = Math.max(1, Math.floor(CONNECTIONS / urls.length));
  const results = await Promise.all(urls.map((url) => load(url, { connections, seconds, body })));
  return {
    perSecond: results.reduce((sum, r) => sum + r.perSecond, 0),
    p50: Math.max(...results.map((r) => r.p50)),
    p99: Math.max(...results.map((r) => r.p99)),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
  };
}

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
const file = join(dir, "bench.db");
const db = DRIVER === "libsql" ? `file:${file}` : file;
const servers: ServerProcess[] = [];
try {
  const start = async () => {
    const server = await startServerProcess({ db, args: ["--rate-limit", "0"] });
    servers.push(server);
    return server;
  };
  const first = await start();
  const key = (await runCli(["keys", "create", "--db", db])).stdout.trim();
  const created = await fetch(`${first.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", slug: "bench", notificationEmail: "owner@example.com" }),
  });
  if (created.status !== 201) throw new Error(await created.text());

  const bare = await startBareServer();
  await loadAll([bare.url], 1);
  const baseline = await loadAll([bare.url], SECONDS);
  await bare.stop();

  const cases: { instances: number; result: Load }[] = [];
  for (const count of [1, 2, 3]) {
    while (servers.length < count) await start();
    const urls = servers.map((s) => `${s.url}/f/bench`);
    await loadAll(urls, 1);
    cases.push({ instances: count, result: await loadAll(urls, SECONDS) });
  }

  const check = new Database(file, { readonly: true });
  const stored = (check.prepare("SELECT submission_count AS n, (SELECT count(*) FROM submissions) AS rows FROM forms WHERE slug = 'bench'").get() as {
    n: number;
    rows: number;
  }) ?? { n: -1, rows: -2 };
  check.close();

  const fmt = (r: Load) => `${r.perSecond.toFixed(0)} posts/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors`;
  console.log(machineLine());
  console.log(`instances: JSON posts, ${CONNECTIONS} connections in all, ${SECONDS} s a case, driver ${DRIVER}, one database file`);
  console.log(`  baseline (bare Bun.serve, no storage): ${fmt(baseline)}`);
  for (const { instances, result } of cases) {
    console.log(`  ${instances} instance(s): ${fmt(result)}; ${(result.perSecond / baseline.perSecond).toFixed(3)} of baseline`);
  }
  console.log(`  stored: ${stored.rows} rows, counter ${stored.n} (${stored.rows === stored.n ? "agree" : "DISAGREE"})`);
} finally {
  for (const server of servers) await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
