// The owner's list on a form of 1,000,000 submissions (BENCH_ROWS) over a year, seeded straight into the file (its spam
// kept as long as the rows go back, so that the purge at start leaves it):
// first pages for every filter, with and without `since`, both orders; deep offsets; each checked for an
// exact pagination.total. Latencies are of sequential requests over a real socket to a server process; the
// baseline is the same server's /healthz in the same run.
// Targets: first pages p99 ≤ 5 ms; offset=500000 and 990000 p99 ≤ 50 ms. Prints figures; asserts nothing.
// Then the flood: a second form that took BENCH_FLOOD_ROWS submissions (default 300,000; the issue's figure is
// 1,000,000) inside one UTC day, where the day counters cannot help: first pages, `since` at the start of that
// day in both orders, and deep offsets, one request at a time. Targets there: first pages and `since` p99 ≤ 5 ms,
// deep offsets p99 ≤ 50 ms. BENCH_ROWS=0 runs the flood alone.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { seedForm } from "./lib/seed.ts";
import { machineLine } from "./lib/machine.ts";

const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const FIRST_PAGE_RUNS = Number(process.env.BENCH_RUNS ?? 200);
const DEEP_RUNS = Number(process.env.BENCH_DEEP_RUNS ?? 50);
const FILTERS = ["all", "unread", "starred", "spam"] as const;
const FLOOD_ROWS = Number(process.env.BENCH_FLOOD_ROWS ?? 300_000);
const FLOOD_RUNS = Number(process.env.BENCH_FLOOD_RUNS ?? 100);
const DAY_MS = 86_400_000;

console.log(machineLine());
const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-list-"));
const db = join(dir, "bench.db");
const key = (await runCli(["keys", "create", "--db", db])).stdout.trim();
const formId = JSON.parse((await runCli(["forms", "create", "--name", "Big", "--slug", "big", "--spam-retention-days", "3650", "--json", "--db", db])).stdout)
  .id as string;
const started = performance.now();
const seeded = seedForm(db, formId, ROWS);
console.log(`list: ${ROWS.toLocaleString("en-US")} submissions seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
// The flood's day: yesterday (UTC), every submission of the form inside it, the first 1 ms after its start.
const floodDay = Math.floor(Date.now() / DAY_MS) * DAY_MS - DAY_MS;
const floodId = JSON.parse((await runCli(["forms", "create", "--name", "Flood", "--slug", "flood", "--json", "--db", db])).stdout).id as string;
const floodStep = Math.max(1, Math.floor((DAY_MS - 1000) / Math.max(1, FLOOD_ROWS)));
const floodStarted = performance.now();
const flood = seedForm(db, floodId, FLOOD_ROWS, floodStep, floodDay + 1 + (FLOOD_ROWS - 1) * floodStep);
console.log(`flood: ${FLOOD_ROWS.toLocaleString("en-US")} submissions in one day seeded in ${((performance.now() - floodStarted) / 1000).toFixed(1)} s`);
const server = await startServerProcess({ db });

interface Figures {
  p50: number;
  p99: number;
}

/** The part of a list answer the checks read. */
interface Page {
  submissions: { id: string }[];
  pagination: { total: number; hasMore: boolean; nextCursor: string | null };
}

async function timed(path: string, runs: number, check?: (body: Page) => void): Promise<Figures> {
  const times: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = performance.now();
    const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const body = await response.json();
    const ms = performance.now() - t0;
    if (response.status !== 200) throw new Error(`${path}: ${response.status} ${JSON.stringify(body)}`);
    check?.(body);
    if (i >= 2) times.push(ms); // the first two warm the statement and the page cache
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length * 0.5)]!, p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]! };
}

try {
  const health = await timed("/healthz", FIRST_PAGE_RUNS);
  console.log(`  baseline GET /healthz: p50 ${health.p50.toFixed(2)} ms, p99 ${health.p99.toFixed(2)} ms (load ${loadavg()[0]!.toFixed(2)})`);
  if (ROWS > 0) await yearFigures(health);
  if (FLOOD_ROWS > 0) await floodFigures();
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}

/** The year of submissions: first pages with and without `since`, deep offsets. */
async function yearFigures(health: Figures): Promise<void> {
  const mid = new Date(seeded.first + (seeded.last - seeded.first) / 2 + 12_345).toISOString();
  // The exact figures the seed wrote, so that every total is checked against what is really there.
  const expected = (filter: (typeof FILTERS)[number], since: boolean) => {
    if (!since) return seeded.counts[filter];
    return null; // checked against a count made by SQLite itself below
  };
  const { Database } = await import("bun:sqlite");
  const check = new Database(db, { readonly: true });
  const counted = (filter: string) => {
    const where = { all: "is_spam = 0", unread: "is_spam = 0 AND is_read = 0", starred: "is_spam = 0 AND is_starred = 1", spam: "is_spam = 1" }[filter];
    return (
      check.prepare(`SELECT count(*) AS n FROM submissions WHERE form_id = ? AND ${where} AND created_at > ?`).get(formId, Date.parse(mid)) as { n: number }
    ).n;
  };
  let worstFirst = 0;
  console.log(`  first pages (limit=25), ${FIRST_PAGE_RUNS} requests each:`);
  for (const filter of FILTERS) {
    for (const since of [false, true]) {
      const total = expected(filter, since) ?? counted(filter);
      for (const order of ["desc", "asc"]) {
        const path = `/api/forms/${formId}/submissions?limit=25&filter=${filter}&order=${order}${since ? `&since=${mid}` : ""}`;
        const f = await timed(path, FIRST_PAGE_RUNS, (body) => {
          if (body.pagination.total !== total) throw new Error(`${path}: total ${body.pagination.total}, expected ${total}`);
        });
        worstFirst = Math.max(worstFirst, f.p99);
        console.log(
          `    filter=${filter.padEnd(7)} order=${order.padEnd(4)} ${since ? "since=<mid>" : "           "}  p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms (total ${total}, exact)`,
        );
      }
    }
  }
  let worstDeep = 0;
  console.log(`  deep offsets (limit=25), ${DEEP_RUNS} requests each:`);
  // offset=500000 and 990000 as asked, and the last page of each filter (the far end of the deepest walk).
  for (const at of [Math.floor(ROWS / 2), Math.floor(ROWS * 0.99), "last"] as const) {
    for (const filter of FILTERS) {
      if (at !== "last" && filter !== "all" && filter !== "unread") continue;
      const offset = at === "last" ? seeded.counts[filter] - 25 : at;
      for (const order of ["desc", "asc"]) {
        const path = `/api/forms/${formId}/submissions?limit=25&filter=${filter}&order=${order}&offset=${offset}`;
        const f = await timed(path, DEEP_RUNS, (body) => {
          if (body.pagination.total !== seeded.counts[filter]) throw new Error(`${path}: total ${body.pagination.total}`);
          const rows = Math.max(0, Math.min(25, seeded.counts[filter] - offset));
          if (body.submissions.length !== rows) throw new Error(`${path}: ${body.submissions.length} rows, expected ${rows}`);
        });
        worstDeep = Math.max(worstDeep, f.p99);
        console.log(
          `    offset=${String(offset).padEnd(6)} filter=${filter.padEnd(7)} order=${order.padEnd(4)} p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`,
        );
      }
    }
  }
  check.close();
  console.log(`  worst first page p99 ${worstFirst.toFixed(2)} ms (target ≤ 5; ${(worstFirst / health.p99).toFixed(1)}× the /healthz p99)`);
  console.log(`  worst deep offset p99 ${worstDeep.toFixed(2)} ms (target ≤ 50; ${(worstDeep / health.p99).toFixed(1)}× the /healthz p99)`);
}

/** The flooded day: every list a person would make on it, each total checked against SQLite's own count. */
async function floodFigures(): Promise<void> {
  const line = (label: string, f: Figures) => console.log(`    ${label.padEnd(46)} p50 ${f.p50.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms`);
  const base = `/api/forms/${floodId}/submissions?limit=25`;
  const exact = (total: number) => (body: Page) => {
    if (body.pagination.total !== total) throw new Error(`flood: total ${body.pagination.total}, expected ${total}`);
  };
  console.log(`  flood, ${FLOOD_RUNS} requests each (load ${loadavg()[0]!.toFixed(2)}):`);
  let worstFirst = 0;
  let worstDeep = 0;
  for (const filter of FILTERS) {
    for (const order of ["desc", "asc"]) {
      const f = await timed(`${base}&filter=${filter}&order=${order}`, FLOOD_RUNS, exact(flood.counts[filter]));
      worstFirst = Math.max(worstFirst, f.p99);
      line(`first page filter=${filter} order=${order}`, f);
    }
  }
  // since = the start of the flooded day: every submission of the form is after it.
  const since = new Date(floodDay).toISOString();
  for (const filter of ["all", "unread"] as const) {
    for (const order of ["asc", "desc"]) {
      const f = await timed(`${base}&filter=${filter}&order=${order}&since=${since}`, FLOOD_RUNS, exact(flood.counts[filter]));
      worstFirst = Math.max(worstFirst, f.p99);
      line(`since=<day start> filter=${filter} order=${order}`, f);
    }
  }
  for (const at of [0.5, 0.99]) {
    for (const filter of ["all", "unread"] as const) {
      const offset = Math.floor(flood.counts[filter] * at);
      for (const order of ["desc", "asc"]) {
        const f = await timed(`${base}&filter=${filter}&order=${order}&offset=${offset}`, Math.min(FLOOD_RUNS, DEEP_RUNS), exact(flood.counts[filter]));
        worstDeep = Math.max(worstDeep, f.p99);
        line(`offset=${offset} filter=${filter} order=${order}`, f);
      }
    }
  }
  console.log(
    `  flood: worst first page or since p99 ${worstFirst.toFixed(2)} ms (target ≤ 5); worst deep offset p99 ${worstDeep.toFixed(2)} ms (target ≤ 50)`,
  );
}
