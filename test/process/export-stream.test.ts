import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { seedForm } from "../../bench/lib/seed.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// A long export through the real server: every row arrives once, and a client that stops reading or leaves
// half-way holds nothing of the server's for longer than it stays (the export reads one snapshot of the file,
// and a snapshot kept open would stop the write-ahead log from ever being folded back in).
const COUNT = 100_000;

let server: ServerProcess;
let key: string;
let kept: number;

beforeAll(async () => {
  server = await startServerProcess();
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const form = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Busy", slug: "busy" }),
  });
  kept = seedForm(server.db, ((await form.json()) as { id: string }).id, COUNT).counts.all;
});
afterAll(() => server.stop());

const exportOf = (format: string, signal?: AbortSignal) =>
  fetch(`${server.url}/api/forms/busy/submissions/export?format=${format}`, { headers: { authorization: `Bearer ${key}` }, signal });

/** Folds the write-ahead log into the file from a connection of its own: false while a reader's snapshot needs it. */
function checkpoint(): boolean {
  const db = new Database(server.db);
  try {
    db.exec("PRAGMA busy_timeout = 0");
    const [result] = db.prepare("PRAGMA wal_checkpoint(TRUNCATE)").all() as { busy: number }[];
    return result!.busy === 0;
  } finally {
    db.close();
  }
}

/** A post through the public endpoint, so that the log holds a write the export's snapshot does not see. */
async function post(): Promise<void> {
  const posted = await fetch(`${server.url}/f/busy`, { method: "POST", body: new URLSearchParams({ note: "during the export" }), redirect: "manual" });
  expect(posted.status).toBe(303);
}

test("an export of many chunks holds every row once, in CSV and NDJSON", async () => {
  const ndjson = (await (await exportOf("ndjson")).text()).trimEnd().split("\n");
  expect(ndjson.length).toBe(kept);
  expect(new Set(ndjson.map((line) => (JSON.parse(line) as { id: string }).id)).size).toBe(kept);
  const csv = (await (await exportOf("csv")).text()).trimEnd().split("\n");
  // The header, then a line a row: the seeded messages hold quotes and commas but no line break.
  expect(csv[0]).toBe("id,createdAt,email,name,message");
  expect(csv.length).toBe(kept + 1);
  expect(csv[1]).toMatch(/^sub_\w+,\d{4}-\d\d-\d\dT[\d:.]+Z,user\d+@example\.com,User \d+,"Hello, this is message number \d+, with a comma and ""quotes""\."$/);
});

test("a client that stops reading holds the export's snapshot only until it leaves", async () => {
  const leave = new AbortController();
  const answer = await exportOf("ndjson", leave.signal);
  const reader = answer.body!.getReader();
  expect((await reader.read()).done).toBe(false);
  // Paused part-way: the export's read is still open, so the log cannot be folded past it.
  await post();
  expect(checkpoint()).toBe(false);
  leave.abort();
  await reader.cancel().catch(() => {});
  // Gone: the server notices the closed socket and ends the read.
  const deadline = Date.now() + 20_000;
  while (!checkpoint()) {
    if (Date.now() > deadline) throw new Error("the export's snapshot was still held 20 s after its client left");
    await Bun.sleep(50);
  }
  // And the server serves on: a whole export right after.
  expect((await (await exportOf("ndjson")).text()).trimEnd().split("\n").length).toBe(kept + 1);
});
