import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { ServerProcess } from "../helpers/server.ts";
import { ownerOf, startCluster, tally, until } from "./instances-support.ts";
import type { StoredSubmission } from "../api/public-support.ts";

// Three `formsvc serve` processes on one database, a stream of posts spread over them, one of them killed
// with SIGKILL in the middle and started again: nothing answered is lost, the counters are exact, and every
// notification and webhook event goes out once (twice at most for the one item the killed process held).
const TOTAL = 240;
const AFTER_RESTART = 60;
const WORKERS = 6;
const KILL_AFTER = 100;

interface Answered {
  seq: number;
  id: string;
  slot: number;
}

for (const driver of ["sqlite", "libsql"] as const) {
  test(`three instances on one database (${driver}): SIGKILL of one mid-stream loses nothing and sends everything once`, async () => {
    // Started at once on a new database: each looks for pending migrations inside the write lock, so it is migrated once.
    const cluster = await startCluster(3, driver);
    try {
      const { api } = await ownerOf(cluster);
      const first = cluster.servers[0]!.url;
      const form = await api<{ id: string; slug: string }>(first, "POST", "/api/forms", { name: "Busy", notificationEmail: "owner@example.com" });
      await api(first, "POST", `/api/forms/${form.id}/webhooks`, { url: `${cluster.receiver.url}/hook` });

      // The process that serves each of the three slots now; the killed one's slot gets its restart.
      const slots: ServerProcess[] = [...cluster.servers];
      const answered: Answered[] = [];
      const unexpected: string[] = [];
      let refused = 0;
      let killed: ServerProcess | null = null;
      let restarted: Promise<void> | null = null;

      async function send(seq: number): Promise<void> {
        const slot = seq % 3;
        let answer: Response;
        try {
          answer = await fetch(`${slots[slot]!.url}/f/${form.slug}`, {
            method: "POST",
            headers: { accept: "application/json", "content-type": "application/json" },
            body: JSON.stringify({ seq: String(seq), email: `visitor${seq}@example.com` }),
          });
        } catch {
          refused += 1; // that instance is gone: no answer, so no promise was made
          return;
        }
        if (answer.status === 200) answered.push({ seq, id: ((await answer.json()) as { id: string }).id, slot });
        else unexpected.push(`${seq}: ${answer.status} ${await answer.text()}`);
        if (answered.length >= KILL_AFTER && killed === null) {
          killed = slots[1]!;
          killed.proc.kill("SIGKILL");
          restarted = cluster.start().then((server) => {
            slots[1] = server;
          });
        }
      }

      let next = 0;
      const stream = (end: number) =>
        Promise.all(
          Array.from({ length: WORKERS }, async () => {
            while (next < end) await send(next++);
          }),
        );
      await stream(TOTAL);
      await restarted;
      const beforeRestart = answered.length;
      await stream(TOTAL + AFTER_RESTART);

      expect({ signal: (killed as ServerProcess | null)?.proc.signalCode, unexpected }).toEqual({ signal: "SIGKILL", unexpected: [] });
      expect(answered.length + refused).toBe(TOTAL + AFTER_RESTART);
      // Spread over all three, and the restarted instance took its share.
      expect([0, 1, 2].map((slot) => answered.filter((a) => a.slot === slot).length > 0)).toEqual([true, true, true]);
      expect(answered.slice(beforeRestart).filter((a) => a.slot === 1).length).toBeGreaterThan(0);

      // Every answered post is stored, once; only a post in flight at the kill may be stored without its answer.
      const listed: StoredSubmission[] = [];
      for (let offset = 0; ; offset += 100) {
        const page = await api<{ submissions: StoredSubmission[]; pagination: { hasMore: boolean; total: number } }>(
          first,
          "GET",
          `/api/forms/${form.id}/submissions?limit=100&offset=${offset}&order=asc`,
        );
        listed.push(...page.submissions);
        if (!page.pagination.hasMore) break;
      }
      const storedIds = new Set(listed.map((s) => s.id));
      expect(answered.filter((a) => !storedIds.has(a.id))).toEqual([]);
      expect(storedIds.size).toBe(listed.length);
      expect(listed.length - answered.length).toBeLessThanOrEqual(WORKERS);
      // createdAt rises with every submission of the form, whichever instance stored it.
      expect(new Set(listed.map((s) => s.createdAt)).size).toBe(listed.length);

      // The counters, kept up to date by three writers, agree with the rows.
      const totalOf = async (query: string) =>
        (await api<{ pagination: { total: number } }>(first, "GET", `/api/forms/${form.id}/submissions?limit=1&${query}`)).pagination.total;
      const counted = await api<{ submissionCount: number }>(first, "GET", `/api/forms/${form.id}`);
      expect({ submissions: counted.submissionCount, unread: await totalOf("filter=unread"), spam: await totalOf("filter=spam") }).toEqual({
        submissions: listed.length,
        unread: listed.length,
        spam: 0,
      });
      const today = new Date().toISOString().slice(0, 10);
      const sinceYesterday = await api<{ pagination: { total: number } }>(
        first,
        "GET",
        `/api/forms/${form.id}/submissions?limit=1&since=${new Date(Date.parse(today) - 86_400_000).toISOString()}`,
      );
      expect(sinceYesterday.pagination.total).toBe(listed.length);

      // Every notification is mailed; a duplicate only for the one the killed instance may have been sending.
      const mails = await until(
        async () => cluster.smtp.messages(),
        (found) => new Set(found.map((m) => /Submission: (sub_\w+)/.exec(m.text ?? "")?.[1])).size >= listed.length,
      );
      const mailed = tally(mails.map((m) => /Submission: (sub_\w+)/.exec(m.text ?? "")?.[1] ?? "?"));
      expect([...storedIds].filter((id) => !mailed.has(id))).toEqual([]);
      expect(mailed.has("?")).toBe(false);
      const mailedTwice = [...mailed.values()].filter((n) => n > 1);
      expect(mailedTwice.length).toBeLessThanOrEqual(1);
      expect(Math.max(...mailed.values())).toBeLessThanOrEqual(2);
      const notifications = async () => {
        const all: { status: string }[] = [];
        for (let offset = 0; ; offset += 100) {
          const page = await api<{ notifications: { status: string }[]; pagination: { hasMore: boolean } }>(
            first,
            "GET",
            `/api/forms/${form.id}/notifications?limit=100&offset=${offset}`,
          );
          all.push(...page.notifications);
          if (!page.pagination.hasMore) return all;
        }
      };
      const sent = await until(notifications, (found) => found.every((n) => n.status === "sent"));
      expect(sent.length).toBe(listed.length);

      // Every webhook event is delivered with one webhook-id; a duplicate only for the one the killed instance held.
      const calls = await cluster.receiver.waitFor(listed.length, 20_000);
      await until(
        async () => new Set(cluster.receiver.calls.map((c) => c.headers["webhook-id"])).size,
        (distinct) => distinct >= listed.length,
      );
      const bySubmission = new Map<string, Set<string>>();
      for (const call of cluster.receiver.calls) {
        const id = (JSON.parse(call.body) as { data: { submission: { id: string } } }).data.submission.id;
        bySubmission.set(id, (bySubmission.get(id) ?? new Set()).add(call.headers["webhook-id"]!));
      }
      expect([...storedIds].filter((id) => bySubmission.get(id)?.size !== 1)).toEqual([]);
      expect(bySubmission.size).toBe(listed.length);
      const delivered = tally(cluster.receiver.calls.map((c) => c.headers["webhook-id"]!));
      expect([...delivered.values()].filter((n) => n > 1).length).toBeLessThanOrEqual(1);
      expect(calls.length).toBeGreaterThanOrEqual(listed.length);

      if (driver === "sqlite") {
        const file = new Database(cluster.db, { readonly: true });
        try {
          expect(file.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
        } finally {
          file.close();
        }
      }
    } finally {
      await cluster.close();
    }
    // Three servers, a restart and 300 posts: on a machine busy with other work this takes far more than the
    // default budget of a test, which is time, not a result.
  }, 180_000);
}

for (const driver of ["sqlite", "libsql"] as const) {
  test(`a change made through one instance is seen at once by the others' public endpoint (${driver})`, async () => {
    const cluster = await startCluster(2, driver);
    try {
      const { api } = await ownerOf(cluster);
      const [a, b] = cluster.servers.map((s) => s.url) as [string, string];
      const form = await api<{ id: string; slug: string }>(a, "POST", "/api/forms", { name: "Seen" });
      const post = async (url: string) =>
        (
          await fetch(`${url}/f/${form.slug}`, {
            method: "POST",
            headers: { accept: "application/json", "content-type": "application/json" },
            body: '{"n":"1"}',
          })
        ).status;
      // B has the form in its cache of forms by slug after this post.
      expect(await post(b)).toBe(200);
      await api(a, "PATCH", `/api/forms/${form.id}`, { isActive: false });
      expect(await post(b)).toBe(403);
      await api(a, "PATCH", `/api/forms/${form.id}`, { isActive: true });
      expect(await post(b)).toBe(200);
    } finally {
      await cluster.close();
    }
  });
}
