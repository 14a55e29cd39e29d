// The public write through the libSQL driver (a file: URL), counted in requests to the database and timed with a
// delay added to every request, as a server across a network would add: the writer's transaction, one for the
// posts that wait at the same time (services/submissions/writer.ts), its reads and statements a request each.
// The form is passed in as the route passes its own look-up; on libSQL that look-up is one more request
// (a read), not counted here. In-process (services, no HTTP). Prints figures; asserts nothing.
// BENCH_POSTS (default 200) sequential posts to count; BENCH_SECONDS (default 3) per timed case.
import { Sqlite3Client, Sqlite3Transaction } from "@libsql/client/sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStore } from "../src/db/client.ts";
import { createServices } from "../src/services/index.ts";
import { operator } from "../src/services/principal.ts";
import { machineLine } from "./lib/machine.ts";

const POSTS = Number(process.env.BENCH_POSTS ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const LATENCIES = [0, 2, 10];

// Every request the client makes (a statement, a batch, a transaction's begin, statement, commit) is counted
// and made to wait `latency` ms first.
let requests = 0;
let latency = 0;
for (const proto of [Sqlite3Client.prototype, Sqlite3Transaction.prototype] as unknown as Record<string, (...args: unknown[]) => unknown>[]) {
  for (const method of ["execute", "batch", "transaction", "commit", "rollback"]) {
    const original = proto[method];
    if (typeof original !== "function") continue;
    proto[method] = async function (this: unknown, ...args: unknown[]) {
      requests++;
      if (latency > 0) await Bun.sleep(latency);
      return original.apply(this, args);
    };
  }
}

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
try {
  const store = await openStore(`file:${join(dir, "bench.db")}`);
  const services = createServices(store, { baseUrl: () => "http://bench", submitUrl: () => "http://bench" });
  const account = await services.accounts.create("bench");
  const created = await services.forms.create(operator(account.id, "live"), { name: "Bench", notificationEmail: "owner@example.com" });
  await services.webhooks.create(operator(account.id, "live"), created.id, { url: "https://hooks.example.com/formsvc" }).catch(() => null);
  const form = await services.forms.findBySlug(created.slug);
  if (!form) throw new Error("no form");
  const data = { email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." };
  type Receiver = typeof services.submissions;
  const post = (submissions: Receiver) => submissions.receive(form, data, { isSpam: false });

  /** Requests per post, posting one at a time. */
  async function perPost(submissions: Receiver): Promise<number> {
    const start = requests;
    for (let i = 0; i < POSTS; i++) await post(submissions);
    return (requests - start) / POSTS;
  }

  /** Posts per second from CONCURRENCY posters. */
  async function rate(submissions: Receiver): Promise<number> {
    const until = performance.now() + SECONDS * 1000;
    let done = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < until) {
          await post(submissions);
          done++;
        }
      }),
    );
    return done / SECONDS;
  }

  const counted = await perPost(services.submissions);
  const timed: { latency: number; rate: number }[] = [];
  for (const ms of LATENCIES) {
    latency = ms;
    timed.push({ latency: ms, rate: await rate(services.submissions) });
  }
  latency = 0;
  store.close();

  console.log(machineLine());
  console.log(`libSQL ingest: the public write through @libsql/client on a file: URL, in-process, ${CONCURRENCY} concurrent posters, ${SECONDS} s a case`);
  console.log(`  requests to the database per post (${POSTS} posts one at a time; a form with a notification and a webhook):`);
  console.log(`    ${counted.toFixed(2)}`);
  console.log("  posts/s with a delay added to every request, as a network would:");
  for (const row of timed) console.log(`    ${String(row.latency).padStart(2)} ms a request: ${row.rate.toFixed(0).padStart(6)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
