// Resident memory of the compiled server on a small VPS's terms, beside a floor built and measured the same way in
// the same run: a compiled Bun.serve + bun:sqlite program that stores each post (one insert, WAL, synchronous=FULL)
// and streams a CSV of its rows, nothing else. Three figures each: idle (1 s after the first answer, an empty
// database), peak over BENCH_SECONDS (10) of JSON posts at 32 connections (with posts/s), and peak over a CSV
// export of BENCH_ROWS (200,000) rows. Peak is the kernel's high-water mark (VmHWM) of the server process.
// Targets (docs/performance.md): idle ≤ 35 MB, burst ≤ 64 MB, export ≤ 80 MB, posts/s no more than 5% below today.
// Prints figures with the load average; asserts nothing. Run alone: bun bench/memory.ts (BENCH_BINARY=dist/formsvc
// measures a binary already built). About 40 s.
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "./lib/load.ts";
import { machineLine } from "./lib/machine.ts";
import { seedForm } from "./lib/seed.ts";
import { compiledPair, freePort, memoryMb, run } from "./lib/compiled.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROWS = Number(process.env.BENCH_ROWS ?? 200_000);
const CONNECTIONS = 32;
const body = JSON.stringify({ email: "ada@example.com", name: "Ada Lovelace", message: "Hello there, this is a test message." });
const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-memory-"));

// The floor: a post stored as formsvc's floor stores it, and an export as a plain streamed CSV of the same rows.
const FLOOR_SOURCE = `
import { Database } from "bun:sqlite";
const db = new Database(process.argv[2]);
db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; CREATE TABLE IF NOT EXISTS s (id TEXT PRIMARY KEY, data TEXT, created_at INTEGER)");
const insert = db.prepare("INSERT INTO s VALUES (?, ?, ?)");
let n = 0;
const quote = (v) => '"' + String(v).replaceAll('"', '""') + '"';
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.argv[3]),
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return Response.json({ status: "ok" });
    if (url.pathname === "/export") {
      const rows = db.prepare("SELECT id, data, created_at FROM s ORDER BY created_at").iterate();
      return new Response(new ReadableStream({
        pull(controller) {
          let chunk = "";
          for (let i = 0; i < 500; i++) {
            const next = rows.next();
            if (next.done) { if (chunk) controller.enqueue(chunk); controller.close(); return; }
            const row = next.value;
            const data = JSON.parse(row.data);
            chunk += [row.id, row.created_at, data.email, data.name, data.message].map(quote).join(",") + "\\n";
          }
          controller.enqueue(chunk);
        },
      }), { headers: { "content-type": "text/csv" } });
    }
    const posted = await request.json();
    const id = "sub_" + (++n).toString(36);
    insert.run(id, JSON.stringify(posted), Date.now());
    return Response.json({ success: true, id });
  },
});
`;

interface Figures {
  idle: number;
  burst: number;
  perSecond: number;
  export: number;
  exported: number;
}

/** Starts a server, and measures it idle, through a burst of posts, then through an export (a fresh process for each). */
async function measure(
  start: (port: number) => string[],
  postUrl: string,
  exportUrl: (port: number) => Promise<{ url: string; headers: Record<string, string> }>,
  seed: () => void,
): Promise<Figures> {
  const once = async <T>(work: (port: number, pid: number) => Promise<T>): Promise<T> => {
    const port = freePort();
    const proc = Bun.spawn(start(port), { cwd: dir, env: { PATH: "/usr/bin:/bin", HOME: dir }, stdout: "ignore", stderr: "ignore" });
    try {
      for (;;) {
        if (proc.exitCode !== null) throw new Error(`${start(port).join(" ")} exited ${proc.exitCode}`);
        const answer = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
        if (answer?.status === 200) break;
        await Bun.sleep(20);
      }
      return await work(port, proc.pid);
    } finally {
      proc.kill("SIGTERM");
      await proc.exited;
    }
  };
  const idle = await once(async (_port, pid) => {
    await Bun.sleep(1000);
    return memoryMb(pid);
  });
  const burst = await once(async (port, pid) => {
    const figures = await load(`http://127.0.0.1:${port}${postUrl}`, { connections: CONNECTIONS, seconds: SECONDS, body });
    return { peak: memoryMb(pid, "VmHWM"), perSecond: figures.perSecond };
  });
  seed();
  const exported = await once(async (port, pid) => {
    const before = memoryMb(pid, "VmHWM");
    const { url, headers } = await exportUrl(port);
    const answer = await fetch(url, { headers });
    let lines = 0;
    const reader = answer.body!.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      for (const byte of value) if (byte === 10) lines++;
    }
    return { peak: Math.max(before, memoryMb(pid, "VmHWM")), lines };
  });
  return { idle, burst: burst.peak, perSecond: burst.perSecond, export: exported.peak, exported: exported.lines };
}

try {
  console.log(machineLine());
  const { binary, floor: floorBinary } = await compiledPair(dir, FLOOR_SOURCE);

  const floorDb = join(dir, "floor.db");
  const floor = await measure(
    (port) => [floorBinary, floorDb, String(port)],
    "/f/bench",
    async (port) => ({ url: `http://127.0.0.1:${port}/export`, headers: {} }),
    () => {
      const db = new Database(floorDb);
      db.exec("DELETE FROM s");
      const insert = db.prepare("INSERT INTO s VALUES (?, ?, ?)");
      db.transaction(() => {
        for (let i = 0; i < ROWS; i++)
          insert.run(
            `sub_${i}`,
            `{"email":"user${i}@example.com","name":"User ${i}","message":"Hello, this is message number ${i}, with a comma and \\"quotes\\"."}`,
            i,
          );
      })();
      db.close();
    },
  );

  const db = join(dir, "formsvc.db");
  const key = (await run(dir, [binary, "keys", "create", "--db", db], "keys create")).trim();
  await run(dir, [binary, "forms", "create", "--name", "Bench", "--slug", "bench", "--db", db], "forms create");
  const exportForm = JSON.parse(await run(dir, [binary, "forms", "create", "--name", "Export", "--slug", "export", "--json", "--db", db], "forms create"))
    .id as string;
  const formsvc = await measure(
    (port) => [binary, "serve", "--host", "127.0.0.1", "--port", String(port), "--db", db, "--rate-limit", "0"],
    "/f/bench",
    async (port) => ({
      url: `http://127.0.0.1:${port}/api/forms/${exportForm}/submissions/export?format=csv`,
      headers: { authorization: `Bearer ${key}` },
    }),
    () => seedForm(db, exportForm, ROWS),
  );

  const row = (name: string, f: Figures) =>
    `  ${name} idle ${f.idle.toFixed(1)} MB; burst peak ${f.burst.toFixed(1)} MB at ${f.perSecond.toFixed(0)} posts/s; export peak ${f.export.toFixed(1)} MB (${f.exported} lines)`;
  console.log(`resident memory: idle, ${SECONDS} s of posts at ${CONNECTIONS} connections, a CSV export of ${ROWS} rows (load ${loadavg()[0]!.toFixed(2)})`);
  console.log(row("floor (Bun.serve + bun:sqlite):", floor));
  console.log(row("formsvc:                       ", formsvc));
  console.log(
    `  formsvc / floor: idle ${(formsvc.idle / floor.idle).toFixed(2)}, burst ${(formsvc.burst / floor.burst).toFixed(2)}, export ${(formsvc.export / floor.export).toFixed(2)}; targets idle ≤ 35, burst ≤ 64, export ≤ 80 MB`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
