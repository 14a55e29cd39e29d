// What a rate limit kept in the database would cost, against the in-memory token bucket that `--rate-limit`
// is, measured in the same run on one SQLite file (synchronous=FULL, group commit) through the services:
// - accepted posts: the bucket then the submission's write. The rate limit is checked before the
//   body is read, so a bucket in the database is a write (and its commit) of its own before the submission's.
// - refused posts (a flood from one address): what the limiter costs when it says no.
// The HTTP part is the same for both and left out, so the ratio is of the work that differs.
// Prints figures; asserts nothing. Bounded: BENCH_SECONDS (default 3) per case, BENCH_ROUNDS (default 3) rounds.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openStore, type Store } from "../src/db/client.ts";
import { RateLimiter } from "../src/http/rate-limit.ts";
import { createServices } from "../src/services/index.ts";
import { operator } from "../src/services/principal.ts";
import { machineLine } from "./lib/machine.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

/**
 * The token bucket of RateLimiter in one statement: refill since the last look, take a token when there is
 * one, and say whether it did. One row per client address and form.
 */
const BUCKET_TABLE = "CREATE TABLE rate_buckets (key TEXT PRIMARY KEY, tokens REAL NOT NULL, at INTEGER NOT NULL, taken INTEGER NOT NULL)";
function takeInDatabase(store: Store, key: string, now: number, perMinute: number, burst: number): Promise<boolean> {
  const rate = perMinute / 60_000;
  const refilled = sql.raw(`min(${burst}, tokens + (excluded.at - at) * ${rate})`);
  return store.write(async (tx) => {
    const [row] = await tx.all<{ taken: number }>(sql`
      INSERT INTO rate_buckets (key, tokens, at, taken) VALUES (${key}, ${burst - 1}, ${now}, 1)
      ON CONFLICT (key) DO UPDATE SET
        tokens = CASE WHEN ${refilled} >= 1 THEN ${refilled} - 1 ELSE ${refilled} END,
        taken = ${refilled} >= 1,
        at = excluded.at
      RETURNING taken`);
    return row!.taken === 1;
  });
}

/** Runs `post` from CONCURRENCY loops for SECONDS; posts per second. */
async function rate(post: (client: number, seq: number) => Promise<unknown>): Promise<number> {
  const until = performance.now() + SECONDS * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, client) => {
      for (let seq = 0; performance.now() < until; seq++) {
        await post(client, seq);
        done++;
      }
    }),
  );
  return done / SECONDS;
}

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
try {
  const store = await openStore(join(dir, "bench.db"));
  await store.write((tx) => tx.run(sql.raw(BUCKET_TABLE)));
  const services = createServices(store, { baseUrl: () => "http://bench", submitUrl: () => "http://bench" });
  const account = await services.accounts.create("bench");
  const form = await services.forms.create(operator(account.id, "live"), { name: "Bench", notificationEmail: "owner@example.com" });
  const data = { email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." };
  const receive = () => services.submissions.receive(form.id, data, { isSpam: false });
  // High enough that no accepted-post case is ever refused: what is measured is the bookkeeping.
  const open = new RateLimiter(1_000_000, 1_000_000);
  const shut = new RateLimiter(1, 1);

  await rate(() => receive()); // warm-up
  // Rounds in turn, the median of each: the machine is shared, and a case run once catches whatever else ran then.
  const rounds: { none: number; memory: number; database: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push({
      none: await rate(() => receive()),
      memory: await rate(async (client) => {
        if (open.take(`10.0.0.${client}|${form.id}`) === 0) await receive();
      }),
      database: await rate(async (client) => {
        if (await takeInDatabase(store, `10.0.0.${client}|${form.id}`, Date.now(), 1_000_000, 1_000_000)) await receive();
      }),
    });
  }
  const median = (pick: (r: (typeof rounds)[number]) => number) => rounds.map(pick).sort((a, b) => a - b)[Math.floor(rounds.length / 2)]!;
  const [none, memory, database] = [median((r) => r.none), median((r) => r.memory), median((r) => r.database)];
  const refusedMemory = await rate(async () => shut.take(`10.0.0.1|${form.id}`));
  await takeInDatabase(store, `10.0.0.1|${form.id}`, Date.now(), 1, 1);
  const refusedDatabase = await rate(() => takeInDatabase(store, `10.0.0.1|${form.id}`, Date.now(), 1, 1));
  store.close();

  const ratio = (a: number, b: number) => (a / b).toFixed(3);
  console.log(machineLine());
  console.log(`rate limit: ${CONCURRENCY} concurrent posters, ${SECONDS} s a case, median of ${ROUNDS} rounds, one SQLite file, in-process (no HTTP)`);
  console.log(`  accepted, no rate limit (baseline):        ${none.toFixed(0)} posts/s`);
  console.log(`  accepted, in-memory bucket (--rate-limit): ${memory.toFixed(0)} posts/s  (${ratio(memory, none)} of baseline)`);
  console.log(`  accepted, bucket row in the database:      ${database.toFixed(0)} posts/s  (${ratio(database, none)} of baseline)`);
  console.log(`  refused flood, in-memory bucket:           ${refusedMemory.toFixed(0)} refusals/s, no write`);
  console.log(`  refused flood, bucket row in the database: ${refusedDatabase.toFixed(0)} refusals/s, each a commit on the one writer`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
