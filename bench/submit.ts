// Public ingest over a real socket: formsvc (durable: every answer means the row is committed with
// synchronous=FULL) against a bare Bun server that reads the body and answers the same JSON, measured in the
// same run, each server in its own process and the load generator (autocannon, under Node) in a third.
// Target: formsvc ≥ 0.5 of the bare server's posts/s at 32 connections, with p99 ≤ 10 ms.
// Prints figures; asserts nothing. Bounded: BENCH_SECONDS (default 5) per server, plus a 1 s warm-up each.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { load, startBareServer, type Load } from "./lib/load.ts";
import { machineLine } from "./lib/machine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONCURRENCY ?? 32);
const body = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });

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

  const bare = await startBareServer();
  await load(bare.url, { connections: CONNECTIONS, seconds: 1, body });
  const baseline = await load(bare.url, { connections: CONNECTIONS, seconds: SECONDS, body });
  await bare.stop();
  const target = `${server.url}/f/bench`;
  await load(target, { connections: CONNECTIONS, seconds: 1, body });
  const formsvc = await load(target, { connections: CONNECTIONS, seconds: SECONDS, body });

  // Every answered post must be a stored row: the figure counts durable submissions, nothing less.
  const db = new Database(server.db, { readonly: true });
  const stored = (db.prepare("SELECT submission_count AS n FROM forms WHERE slug = 'bench'").get() as { n: number }).n;
  db.close();

  const fmt = (r: Load) => `${r.perSecond.toFixed(0)} posts/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors`;
  console.log(machineLine());
  console.log(`ingest: JSON posts of three fields, ${CONNECTIONS} connections, ${SECONDS} s each (autocannon in its own process)`);
  console.log(`  baseline (bare Bun.serve, no storage):             ${fmt(baseline)}`);
  console.log(`  formsvc (each answer after COMMIT, synchronous=FULL): ${fmt(formsvc)}; ${stored} rows stored in all`);
  console.log(`  formsvc / baseline throughput: ${(formsvc.perSecond / baseline.perSecond).toFixed(3)} (target ≥ 0.5); p99 ${formsvc.p99} ms (target ≤ 10)`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
