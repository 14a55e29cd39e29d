// What the public write's SQL costs by itself, against the durable floor's single insert, in one process with no
// HTTP: batches of 32 posts (what a write holds at 32 connections), each its own transaction committed with
// synchronous=FULL, on a file made by formsvc's migrations. Steps, each adding to the one before: the floor's
// insert (a table with a primary key only), formsvc's multi-row insert of the submissions (the writer's own
// insertRows, the row as a plain post makes it), the notifications' insert, and the form's, day's and minute's
// counters (the statements of services/submissions/counters.ts, as SQL text here). Prints the process's CPU a
// post (user + system) and the wall time a post; asserts nothing. With bench/submit.ts's figures (a bare
// Bun.serve's CPU a post, the floor's and formsvc's), it says how much of a post the write's statements are and
// how much the rest of the request. Bounded: BENCH_BATCHES (default 400) batches a step, two rounds: ~10 s.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { Db } from "../src/db/client.ts";
import { notifications, submissions } from "../src/db/schema.ts";
import { insertRows } from "../src/db/statement.ts";
import { newId } from "../src/lib/ids.ts";
import { runCli } from "../test/helpers/cli.ts";
import { machineLine } from "./lib/machine.ts";

const BATCH = 32;
const BATCHES = Number(process.env.BENCH_BATCHES ?? 400);
const data = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-write-"));
const path = join(dir, "bench.db");
await runCli(["forms", "create", "--name", "Bench", "--slug", "bench", "--db", path]);
const db = new Database(path);
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY");
db.exec("CREATE TABLE floor (id TEXT PRIMARY KEY, form TEXT, data TEXT, created_at INTEGER)");
const tx = drizzle(db) as unknown as Db;
const formId = (db.prepare("SELECT id FROM forms WHERE slug = 'bench'").get() as { id: string }).id;

const floorInsert = db.prepare("INSERT INTO floor VALUES (?, ?, ?, ?)");
const formCounters = db.prepare(
  "UPDATE forms SET submission_count = submission_count + ?, unread_count = unread_count + ?, last_submission_at = ? WHERE id = ?",
);
const upsert = (table: string, bucket: string) =>
  db.prepare(
    `INSERT INTO ${table} (form_id, ${bucket}, submission_count, spam_count, unread_count, starred_count) VALUES (?, ?, ?, 0, ?, 0)
     ON CONFLICT (form_id, ${bucket}) DO UPDATE SET submission_count = submission_count + excluded.submission_count, unread_count = unread_count + excluded.unread_count`,
  );
const dayCounters = upsert("submission_days", "day");
const minuteCounters = upsert("submission_minutes", "minute");

/** A batch's submissions as the writer inserts them (a plain post: not spam, no hash, the filter's tokens). */
function submissionRows(now: number) {
  const tokens = JSON.stringify(["email:ada@example.com", "from:example.com", "Hello", "there", "test", "message"]);
  return Array.from({ length: BATCH }, () => ({
    id: newId("submission", now),
    formId,
    data,
    createdAt: now,
    isRead: 0,
    isStarred: 0,
    isSpam: 0,
    spamReason: null,
    spamScore: 0.1,
    spamTokens: tokens,
    dataHash: null,
    held: null,
    unconfirmed: 0,
  }));
}

const notificationRows = (now: number, ids: string[]) =>
  ids.map((submissionId) => ({
    id: newId("notification", now),
    formId,
    submissionId,
    to: "owner@example.com",
    subject: "New submission: Bench",
    status: "pending",
    createdAt: now,
    nextAttemptAt: now,
    kind: "notification",
  }));

// Each of formsvc's steps is the one before it and one more statement.
async function insertSubmissions(now: number): Promise<string[]> {
  const rows = submissionRows(now);
  await insertRows(tx, submissions, rows);
  return rows.map((row) => row.id);
}
async function withNotifications(now: number): Promise<void> {
  await insertRows(tx, notifications, notificationRows(now, await insertSubmissions(now)));
}
async function withCounters(now: number): Promise<void> {
  await withNotifications(now);
  formCounters.run(BATCH, BATCH, now, formId);
  dayCounters.run(formId, Math.floor(now / 86_400_000), BATCH, BATCH);
  minuteCounters.run(formId, Math.floor(now / 60_000), BATCH, BATCH);
}

const STEPS: [string, (now: number) => Promise<unknown>][] = [
  [
    "the floor: one insert a post, primary key only",
    async (now) => {
      for (let i = 0; i < BATCH; i++) floorInsert.run(newId("submission", now), "bench", data, now);
    },
  ],
  ["formsvc: the submissions' multi-row insert", insertSubmissions],
  ["  + the notifications' insert", withNotifications],
  ["  + the form's, day's and minute's counters", withCounters],
];

console.log(machineLine());
console.log(`write statements: batches of ${BATCH} posts, ${BATCHES} batches a step, each batch one transaction (synchronous=FULL)`);
try {
  for (let round = 1; round <= 2; round++) {
    for (const [label, step] of STEPS) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      for (let b = 0; b < BATCHES; b++) {
        db.exec("BEGIN IMMEDIATE");
        await step(Date.now());
        db.exec("COMMIT");
      }
      const used = process.cpuUsage(cpu);
      const posts = BATCH * BATCHES;
      const micros = (n: number) => `${(n / posts).toFixed(1)} µs`;
      console.log(
        `  round ${round}, ${label.padEnd(46)} CPU ${micros(used.user + used.system)} a post, wall ${micros((performance.now() - started) * 1000)}; load ${loadavg()[0]!.toFixed(2)}`,
      );
    }
  }
} finally {
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
