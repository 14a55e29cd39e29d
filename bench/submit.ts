// Submission throughput over a real socket: formsvc (durable: every answer means the row is on disk)
// against a bare Bun server that reads the body and answers the same JSON, measured in the same run.
// Prints figures; asserts nothing. Bounded: N posts at a fixed concurrency.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";

const TOTAL = Number(process.env.BENCH_POSTS ?? 3000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const body = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });

async function blast(url: string): Promise<{ perSecond: number; p50: number; p99: number }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < TOTAL) {
        next++;
        const t0 = performance.now();
        const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body });
        if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
        await response.arrayBuffer();
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { perSecond: TOTAL / seconds, p50: latencies[Math.floor(latencies.length * 0.5)]!, p99: latencies[Math.floor(latencies.length * 0.99)]! };
}

function bareServer() {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      await request.json();
      return Response.json({ success: true, message: "ok", id: "x" });
    },
  });
  return { url: `http://127.0.0.1:${server.port}/f/bench`, stop: () => server.stop(true) };
}

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
const server = await startServerProcess({ db: join(dir, "bench.db"), args: ["--rate-limit", "0"] });
try {
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const created = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", slug: "bench" }),
  });
  if (created.status !== 201) throw new Error(await created.text());

  const bare = bareServer();
  const baseline = await blast(bare.url);
  bare.stop();
  const formsvc = await blast(`${server.url}/f/bench`);

  const fmt = (r: { perSecond: number; p50: number; p99: number }) => `${r.perSecond.toFixed(0)} posts/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms`;
  console.log(`submissions: ${TOTAL} JSON posts, ${CONCURRENCY} at a time`);
  console.log(`  baseline (bare Bun server, no storage): ${fmt(baseline)}`);
  console.log(`  formsvc (stored, synchronous=FULL):      ${fmt(formsvc)}`);
  console.log(`  formsvc / baseline throughput: ${(formsvc.perSecond / baseline.perSecond).toFixed(3)}`);
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
