import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import type { StoredSubmission } from "../api/public-support.ts";

// A stream of submissions, SIGKILL in the middle of it, a restart on the same file: every post that was
// answered as a success must be there, and the form's counter must agree with the list.
const TOTAL = 300;
const WORKERS = 4;
const KILL_AFTER = 150;
const ARGS = ["--rate-limit", "0"];

const started: ServerProcess[] = [];
afterEach(async () => {
  for (const server of started.splice(0)) {
    if (server.proc.exitCode === null && !server.proc.killed) await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
});

async function start(db?: string): Promise<ServerProcess> {
  const server = await startServerProcess({ db, args: ARGS });
  started.push(server);
  return server;
}

/** The payload of post number `seq`: JSON for two in three, a urlencoded browser post for the rest. */
const payload = (seq: number) => ({ seq: String(seq), name: `Visitor ${seq}`, note: "ü ".repeat(seq % 7) });

/** Every submission of the form, page by page, and the totals the API reports. */
async function listAll(url: string, key: string, formId: string) {
  const headers = { authorization: `Bearer ${key}` };
  const listed: StoredSubmission[] = [];
  let total = -1;
  for (let offset = 0; ; offset += 100) {
    const answer = await fetch(`${url}/api/forms/${formId}/submissions?limit=100&offset=${offset}&order=asc`, { headers });
    expect(answer.status).toBe(200);
    const page = (await answer.json()) as { submissions: StoredSubmission[]; pagination: { total: number; hasMore: boolean } };
    listed.push(...page.submissions);
    total = page.pagination.total;
    if (!page.pagination.hasMore) break;
  }
  const form = (await (await fetch(`${url}/api/forms/${formId}`, { headers })).json()) as { submissionCount: number };
  return { listed, total, submissionCount: form.submissionCount };
}

test("SIGKILL during a stream of submissions loses none that were answered with success", async () => {
  const first = await start();
  const minted = await runCli(["keys", "create", "--db", first.db]);
  expect(minted.code).toBe(0);
  const key = minted.stdout.trim();
  const created = await fetch(`${first.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Crash", redirectUrl: "https://example.com/thanks" }),
  });
  const form = (await created.json()) as { id: string; submitUrl: string };

  const answered: { seq: number; id?: string }[] = [];
  const unexpected: string[] = [];
  let refused = 0;
  let next = 0;
  let killedAt = -1;

  async function send(seq: number): Promise<void> {
    const asJson = seq % 3 !== 0;
    const init: RequestInit = asJson
      ? { method: "POST", headers: { accept: "application/json", "content-type": "application/json" }, body: JSON.stringify(payload(seq)) }
      : { method: "POST", body: new URLSearchParams(payload(seq)), redirect: "manual" };
    let answer: Response;
    try {
      answer = await fetch(form.submitUrl, init);
    } catch {
      refused += 1; // the server is gone: no answer, so no promise was made
      return;
    }
    if (asJson && answer.status === 200) answered.push({ seq, id: ((await answer.json()) as { id: string }).id });
    else if (!asJson && answer.status === 303) answered.push({ seq });
    else unexpected.push(`${seq}: ${answer.status} ${await answer.text()}`);
    if (answered.length >= KILL_AFTER && killedAt < 0) {
      // Mid-stream: the other workers have posts in flight right now.
      killedAt = next;
      first.proc.kill("SIGKILL");
    }
  }

  // One worker is a sequential stream; together they are a few concurrent clients.
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < TOTAL) await send(next++);
    }),
  );
  await first.proc.exited;

  expect({ signal: first.proc.signalCode, unexpected }).toEqual({ signal: "SIGKILL", unexpected: [] });
  // The kill really fell inside the stream: posts were answered before it and refused after it.
  expect(killedAt).toBeGreaterThanOrEqual(KILL_AFTER);
  expect(refused).toBeGreaterThan(0);
  expect(answered.length + refused).toBe(TOTAL);

  const second = await start(first.db);
  const { listed, total, submissionCount } = await listAll(second.url, key, form.id);
  const bySeq = new Map(listed.map((s) => [Number(s.data.seq), s]));
  const missing = answered.filter((a) => !bySeq.has(a.seq) || (a.id !== undefined && bySeq.get(a.seq)!.id !== a.id));
  expect(missing).toEqual([]);
  // Nothing twice, nothing mangled, and the counter agrees with the list.
  expect(bySeq.size).toBe(listed.length);
  for (const submission of listed) expect(submission.data).toEqual(payload(Number(submission.data.seq)));
  expect({ total, submissionCount }).toEqual({ total: listed.length, submissionCount: listed.length });
  // Only a post that was in flight at the kill may be stored without its answer having arrived.
  expect(listed.length - answered.length).toBeLessThanOrEqual(WORKERS);

  const file = new Database(first.db, { readonly: true });
  try {
    expect(file.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  } finally {
    file.close();
  }
});
