// The durable floor of the ingest bench, as issue 24 gave it (durable-floor.js beside the issue), changed only to
// listen on a free port and print its address for bench/submit.ts: Bun.serve + bun:sqlite (WAL,
// synchronous=FULL), one insert per post, group commit of every post read in the same turn of the event loop,
// the answer sent after COMMIT. No routing, no validation, no counters: what formsvc's public write cannot beat
// on the same machine. Run: DB=floor.db bun bench/lib/durable-floor.js
import { Database } from "bun:sqlite";
const db = new Database(process.env.DB);
db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS s (id TEXT PRIMARY KEY, form TEXT, data TEXT, created_at INTEGER)");
const ins = db.prepare("INSERT INTO s VALUES (?, ?, ?, ?)");
let queue = [];
const flush = db.transaction((items) => {
  for (const it of items) ins.run(it.id, "bench", it.data, Date.now());
});
function drain() {
  const items = queue;
  queue = [];
  try {
    flush(items);
    for (const it of items) it.resolve();
  } catch (e) {
    for (const it of items) it.reject(e);
  }
}
let n = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.env.PORT ?? 0),
  async fetch(req) {
    const body = await req.json();
    const id = `sub_${(++n).toString(36)}${process.hrtime.bigint().toString(36)}`;
    await new Promise((resolve, reject) => {
      if (queue.length === 0) setImmediate(drain);
      queue.push({ id, data: JSON.stringify(body), resolve, reject });
    });
    return Response.json({ success: true, message: "ok", id });
  },
});
console.log(`http://127.0.0.1:${server.port}/f/bench`);
