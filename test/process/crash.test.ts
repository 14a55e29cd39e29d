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

/** Every page of a list of the API, `key` naming the array in its envelope. */
async function pages<T>(url: string, key: string, path: string, field: string): Promise<T[]> {
  const all: T[] = [];
  for (let offset = 0; ; offset += 100) {
    const answer = await fetch(`${url}${path}${path.includes("?") ? "&" : "?"}limit=100&offset=${offset}`, { headers: { authorization: `Bearer ${key}` } });
    expect(answer.status).toBe(200);
    const page = (await answer.json()) as Record<string, unknown> & { pagination: { hasMore: boolean } };
    all.push(...(page[field] as T[]));
    if (!page.pagination.hasMore) break;
  }
  return all;
}

test("SIGKILL amid large batches: every answered post, exact counters, each notification and delivery once", async () => {
  const BATCH_WORKERS = 48;
  const first = await startServerProcess({ args: [...ARGS, "--webhooks-allow-private"] });
  started.push(first);
  const key = (await runCli(["keys", "create", "--db", first.db])).stdout.trim();
  const api = async (method: string, path: string, body: unknown) => {
    const answer = await fetch(`${first.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; submitUrl: string };
  };
  // Two forms, so that a batch holds posts of both; each notifies its owner and has a webhook (never reached: the
  // deliveries stay queued, and are counted as rows).
  const forms = [
    await api("POST", "/api/forms", { name: "A", notificationEmail: "a@example.com" }),
    await api("POST", "/api/forms", { name: "B", notificationEmail: "b@example.com" }),
  ];
  for (const form of forms) await api("POST", `/api/forms/${form.id}/webhooks`, { url: "http://127.0.0.1:9/hook" });

  const answered = new Map<number, string>();
  let next = 0;
  let killed = false;
  // Every seventh post is caught by the honeypot; from post 200 on, posts bring a field the forms have not seen.
  const post = (seq: number) => ({
    seq: String(seq),
    name: `Visitor ${seq}`,
    ...(seq >= 200 ? { [`late${seq % 3}`]: "x" } : {}),
    ...(seq % 7 === 0 ? { _gotcha: "bot" } : {}),
  });
  async function send(seq: number): Promise<void> {
    const form = forms[seq % 2]!;
    try {
      const answer = await fetch(form.submitUrl, {
        method: "POST",
        headers: { accept: "application/json", "content-type": "application/json" },
        body: JSON.stringify(post(seq)),
      });
      if (answer.status === 200) answered.set(seq, ((await answer.json()) as { id: string }).id);
    } catch {
      return; // the server is gone: no answer, no promise
    }
    if (answered.size >= 600 && !killed) {
      killed = true;
      first.proc.kill("SIGKILL");
    }
  }
  await Promise.all(
    Array.from({ length: BATCH_WORKERS }, async () => {
      while (next < 2_000 && !killed) await send(next++);
    }),
  );
  await first.proc.exited;
  expect(killed).toBe(true);

  const second = await start(first.db);
  const stored = new Map<number, StoredSubmission>();
  for (const form of forms) {
    const kept = await pages<StoredSubmission>(second.url, key, `/api/forms/${form.id}/submissions?order=asc`, "submissions");
    const spam = await pages<StoredSubmission>(second.url, key, `/api/forms/${form.id}/submissions?filter=spam`, "submissions");
    for (const submission of [...kept, ...spam]) stored.set(Number(submission.data.seq), submission);
    // The counters agree with the rows, the form's and its days'.
    const shown = (await (await fetch(`${second.url}/api/forms/${form.id}`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      submissionCount: number;
    };
    expect(shown.submissionCount).toBe(kept.length);
    const since = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const daily = (await (
      await fetch(`${second.url}/api/forms/${form.id}/stats/daily?since=${since}`, { headers: { authorization: `Bearer ${key}` } })
    ).json()) as {
      days: { submissions: number; spam: number }[];
    };
    expect(daily.days.reduce((sum, day) => sum + day.submissions, 0)).toBe(kept.length);
    expect(daily.days.reduce((sum, day) => sum + day.spam, 0)).toBe(spam.length);
    // Each kept submission has exactly one notification and one delivery; spam has none.
    const notified = (await pages<{ submissionId: string }>(second.url, key, `/api/forms/${form.id}/notifications`, "notifications")).map(
      (n) => n.submissionId,
    );
    const delivered = (await pages<{ submissionId: string }>(second.url, key, `/api/forms/${form.id}/deliveries`, "deliveries")).map((d) => d.submissionId);
    expect(notified.toSorted()).toEqual(kept.map((s) => s.id).toSorted());
    expect(delivered.toSorted()).toEqual(kept.map((s) => s.id).toSorted());
    // The field list holds every name its stored submissions have.
    const listed = (await (await fetch(`${second.url}/api/forms/${form.id}/submissions?limit=1`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      fields: string[];
    };
    const names = new Set([...kept, ...spam].flatMap((s) => Object.keys(s.data)));
    expect(listed.fields.toSorted()).toEqual([...names].toSorted());
  }
  const missing = [...answered].filter(([seq, id]) => stored.get(seq)?.id !== id);
  expect(missing).toEqual([]);
  // Only posts in flight at the kill may be stored without their answer having arrived.
  expect(stored.size - answered.size).toBeLessThanOrEqual(BATCH_WORKERS);
  expect(stored.size).toBeGreaterThanOrEqual(600);
});
