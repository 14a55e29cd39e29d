import { afterEach, expect, test } from "bun:test";
import { operator } from "../../src/services/principal.ts";
import { startWebhookSender, type WebhookSender } from "../../src/workers/webhook-sender.ts";
import { testApp, type TestApp } from "../helpers/app.ts";

// The webhook sender against real receivers on loopback: one that never answers, one that takes 2 s, one that
// answers at once. A slow or dead endpoint must delay only itself.
const LOOPBACK = async () => [{ address: "127.0.0.1", family: 4 as const }];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A receiver that answers each call after `delayMs` (or never, with `null`), counting the calls it answered. */
function slowReceiver(delayMs: number | null) {
  const answered: number[] = [];
  const arrived: string[] = [];
  const hanging: (() => void)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(request) {
      arrived.push(new URL(request.url).pathname);
      await request.text();
      if (delayMs === null) await new Promise<void>((resolve) => hanging.push(resolve));
      else await Bun.sleep(delayMs);
      answered.push(Date.now());
      return new Response("ok");
    },
  });
  cleanups.push(() => {
    for (const release of hanging.splice(0)) release();
    server.stop(true);
  });
  return { url: `http://127.0.0.1:${server.port}`, answered, arrived };
}

async function app(): Promise<TestApp> {
  const t = await testApp({ webhooks: { allowPrivate: true, resolve: LOOPBACK } });
  cleanups.push(() => t.close());
  return t;
}

/** An account with one form and a webhook to each of `urls`; returns a function that posts to the form. */
async function accountWithHooks(t: TestApp, urls: string[]) {
  const account = await t.account();
  const form = await account.form();
  for (const url of urls) await t.services.webhooks.create(operator(account.id, "live"), form.id, { url });
  return async (n = 1) => {
    for (let i = 0; i < n; i++) {
      const answer = await t.request("POST", `/f/${form.slug}`, { body: { email: `visitor${i}@example.com` }, headers: { accept: "application/json" } });
      expect(answer.status).toBe(200);
    }
  };
}

function sender(t: TestApp): WebhookSender {
  const started = startWebhookSender(t.services.webhooks, {
    retryScale: 1,
    allowPrivate: true,
    resolve: LOOPBACK,
    userAgent: "formsvc-test",
    log: { line() {}, error() {} },
  });
  cleanups.push(() => started.stop(500));
  return started;
}

/** Waits (bounded) until `done()` holds. */
async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms`);
    await Bun.sleep(20);
  }
}

test("an endpoint that never answers does not hold up another account's webhook", async () => {
  const t = await app();
  const dead = slowReceiver(null);
  const live = slowReceiver(0);
  const postDead = await accountWithHooks(
    t,
    Array.from({ length: 20 }, (_, i) => `${dead.url}/dead/${i}`),
  );
  const postLive = await accountWithHooks(t, [`${live.url}/live`]);
  await postDead(3);
  sender(t);
  await until(() => dead.arrived.length > 0, 5_000);
  const posted = Date.now();
  await postLive();
  await until(() => live.answered.length === 1, 5_000);
  expect(live.answered[0]! - posted).toBeLessThan(3_000);
});

test("500 deliveries to receivers that take 2 s each drain at ten times one at a time's rate", async () => {
  const t = await app();
  const slow = slowReceiver(2_000);
  // Four accounts, each a form with five endpoints on the slow receiver: 25 posts each make 500 deliveries.
  for (let a = 0; a < 4; a++) {
    const post = await accountWithHooks(
      t,
      Array.from({ length: 5 }, (_, i) => `${slow.url}/a${a}/${i}`),
    );
    await post(25);
  }
  sender(t);
  // The rate over a fixed window, rather than the whole drain: one at a time is 0.5 deliveries a second.
  await until(() => slow.answered.length > 0, 10_000);
  const from = slow.answered[0]!;
  const WINDOW_MS = 6_000;
  await until(() => Date.now() > from + WINDOW_MS, WINDOW_MS + 1_000);
  const rate = slow.answered.filter((at) => at <= from + WINDOW_MS).length / (WINDOW_MS / 1000);
  console.log(`drain rate: ${rate.toFixed(1)} deliveries/s to a receiver that takes 2 s`);
  expect(rate).toBeGreaterThanOrEqual(5);
}, 30_000);

test("an endpoint that fails five times in a row is paused as a whole: its other deliveries wait, unattempted", async () => {
  const t = await app();
  const calls: number[] = [];
  const failing = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      calls.push(Date.now());
      return new Response("down", { status: 503 });
    },
  });
  cleanups.push(() => failing.stop(true));
  const account = await t.account();
  const form = await account.form();
  await t.services.webhooks.create(operator(account.id, "live"), form.id, { url: `http://127.0.0.1:${failing.port}/hook` });
  for (let i = 0; i < 8; i++) {
    expect((await t.request("POST", `/f/${form.slug}`, { body: { n: String(i) }, headers: { accept: "application/json" } })).status).toBe(200);
  }
  sender(t);
  await until(() => calls.length >= 5, 10_000);
  // No sixth call: the deliveries left are not tried (nor their attempts used up) while the circuit is open.
  await Bun.sleep(500);
  expect(calls.length).toBe(5);
  const [circuit] = await t.services.webhooks.circuits(form.id, Date.now());
  expect({ streak: circuit?.failureStreak, pausedForMoreThan20s: (circuit?.openUntil ?? 0) - Date.now() > 20_000 }).toEqual({
    streak: 5,
    pausedForMoreThan20s: true,
  });
  expect(await t.services.webhooks.openCircuits(Date.now())).toBe(1);
  const page = await t.services.webhooks.deliveries(operator(account.id, "live"), form.id, null, { limit: 50, offset: 0 });
  expect(page.deliveries.map((d) => d.attempts).sort()).toEqual([0, 0, 0, 1, 1, 1, 1, 1]);
});
