// How long one large post holds other forms' posts: a 1 MB post ({"topic": [250,000 items]}) to a plain form,
// and the same post to a form at the limits (20 webhooks and 20 destinations, each with 20 conditions, `in` lists
// of 100 values among them), side by side in one server process, while a second client posts small ones to
// another form without pause. Figures: the large post's own time, and the slowest small post answered while it was
// in flight (what "holds other forms' posts" means), for each of ROUNDS rounds, the two kinds alternating.
// The conditions are decided in code before the write (services/submissions/keep.ts, routingOf), so the second
// figure should match the plain form's. Prints figures with the load average; asserts nothing. About 20 s.
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_CONDITIONS } from "../src/services/outbox/conditions.ts";
import { MAX_DESTINATIONS_PER_FORM, MAX_WEBHOOKS_PER_FORM } from "../src/domain/types.ts";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { machineLine } from "./lib/machine.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ITEMS = 250_000;
const large = JSON.stringify({ topic: Array.from({ length: ITEMS }, (_, i) => String(i % 10)) });
const small = JSON.stringify({ email: "ada@example.com", message: "hello" });

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
// A receiver that answers every delivery at once: the senders are not what is measured.
const receiver = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("ok") });
const server = await startServerProcess({ db: join(dir, "bench.db"), args: ["--rate-limit", "0", "--webhooks-allow-private"] });
try {
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const api = async (path: string, body: unknown) => {
    const answer = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
    return (await answer.json()) as { id: string };
  };
  await api("/api/forms", { name: "Plain", slug: "plain" });
  await api("/api/forms", { name: "Other", slug: "other" });
  const limits = await api("/api/forms", { name: "Limits", slug: "limits" });
  // Conditions no post meets, so that each is decided on every value and nothing is delivered.
  const when = Array.from({ length: MAX_CONDITIONS }, (_, i) =>
    i % 2 === 0
      ? { field: "topic", op: "in", value: Array.from({ length: 100 }, (_, j) => `none ${i} ${j}`) }
      : { field: "topic", op: "contains", value: `absent ${i}` },
  );
  const target = `http://127.0.0.1:${receiver.port}`;
  for (let i = 0; i < MAX_WEBHOOKS_PER_FORM; i++) await api(`/api/forms/${limits.id}/webhooks`, { url: `${target}/hook/${i}`, when });
  for (let i = 0; i < MAX_DESTINATIONS_PER_FORM; i++)
    await api(`/api/forms/${limits.id}/destinations`, { type: "ntfy", config: { topic: `topic-${i}`, baseUrl: target }, when });

  const post = async (slug: string, body: string) => {
    const started = performance.now();
    const answer = await fetch(`${server.url}/f/${slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body,
    });
    await answer.arrayBuffer();
    if (answer.status !== 200) throw new Error(`/f/${slug}: ${answer.status}`);
    return performance.now() - started;
  };

  /** One large post to `slug`, with small posts to another form going on meanwhile: its time, and theirs at worst. */
  async function round(slug: string): Promise<{ own: number; worst: number; others: number }> {
    let done = false;
    let worst = 0;
    let others = 0;
    const background = (async () => {
      while (!done) {
        worst = Math.max(worst, await post("other", small));
        others++;
      }
    })();
    await Bun.sleep(50);
    const own = await post(slug, large);
    done = true;
    await background;
    return { own, worst, others };
  }

  console.log(machineLine());
  console.log(`one ${(large.length / 1024 ** 2).toFixed(2)} MB post of ${ITEMS} list items, while small posts go to another form; ${ROUNDS} rounds`);
  const rows: Record<"plain" | "limits", { own: number; worst: number; others: number }[]> = { plain: [], limits: [] };
  for (let i = 0; i < ROUNDS; i++) for (const slug of ["plain", "limits"] as const) rows[slug].push(await round(slug));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  for (const slug of ["plain", "limits"] as const) {
    const label =
      slug === "plain" ? "plain form (no webhook)       " : `form at the limits (${MAX_WEBHOOKS_PER_FORM}+${MAX_DESTINATIONS_PER_FORM}×${MAX_CONDITIONS})`;
    const list = rows[slug];
    console.log(
      `  ${label}: large post ${median(list.map((r) => r.own)).toFixed(0)} ms (median), slowest small post meanwhile ${median(list.map((r) => r.worst)).toFixed(0)} ms (median of rounds; each: ${list.map((r) => r.worst.toFixed(0)).join(", ")}) (load ${loadavg()[0]!.toFixed(2)})`,
    );
  }
} finally {
  await server.stop();
  receiver.stop(true);
  rmSync(dir, { recursive: true, force: true });
}
