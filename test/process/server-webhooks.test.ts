import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { runCli } from "../helpers/cli.ts";
import { startReceiver, type Answer, type Receiver } from "../helpers/receiver.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// Real server processes POST to real receivers on loopback (hence --webhooks-allow-private), on a schedule
// shrunk a thousandfold: 5 ms, 300 ms, 1.8 s, ...
const ARGS = ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-retry-scale", "0.001"];

const servers: ServerProcess[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) receiver.stop();
  for (const server of servers.splice(0)) {
    if (server.proc.exitCode === null && !server.proc.killed) await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
}, 30_000);

async function start(options: { db?: string; env?: Record<string, string> } = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ db: options.db, args: ARGS, env: options.env });
  servers.push(server);
  return server;
}

function receiver(answer?: Answer): Receiver {
  const started = startReceiver(answer);
  receivers.push(started);
  return started;
}

interface Setup {
  server: ServerProcess;
  key: string;
  form: { id: string; slug: string; name: string };
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  post(data: Record<string, unknown>): Promise<string>;
}

/** A server with a key and a form "Contact". */
async function setup(server: ServerProcess): Promise<Setup> {
  const minted = await runCli(["keys", "create", "--db", server.db]);
  expect(minted.code).toBe(0);
  const key = minted.stdout.trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  const form = (await api("POST", "/api/forms", { name: "Contact" })).body;
  return {
    server,
    key,
    form,
    api,
    async post(data) {
      const response = await fetch(`${server.url}/f/${form.slug}`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify(data),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { id: string }).id;
    },
  };
}

/** Reads the form's deliveries until `done` holds of them (the sender works beside the test), or fails after 15 s. */
async function deliveriesWhen(s: Setup, done: (list: any[]) => boolean): Promise<any[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const list = (await s.api("GET", `/api/forms/${s.form.id}/deliveries`)).body.deliveries as any[];
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`deliveries never reached the state wanted: ${JSON.stringify(list)}`);
    await Bun.sleep(50);
  }
}

test("a submission reaches the receiver as a submission.created event that the standardwebhooks package verifies", async () => {
  const hook = receiver();
  const s = await setup(await start());
  const created = await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: `${hook.url}/hooks/formsvc`, description: "CRM" });
  expect(created).toEqual({
    status: 201,
    body: {
      id: expect.stringMatching(/^whk_/),
      formId: s.form.id,
      url: `${hook.url}/hooks/formsvc`,
      description: "CRM",
      format: "standard",
      when: [],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      secretPrefix: expect.stringMatching(/^whsec_.{4}…$/),
      createdAt: expect.any(String),
    },
  });
  const submissionId = await s.post({ email: "ann@example.com", message: "Hello" });
  const [call] = await hook.waitFor(1);

  // An implementation that is not ours checks the signature, the timestamp and the id.
  const event = new Webhook(created.body.secret).verify(call!.body, call!.headers) as any;
  expect(event).toEqual({
    type: "submission.created",
    timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    data: {
      form: { id: s.form.id, slug: s.form.slug, name: "Contact", mode: "live" },
      submission: {
        id: submissionId,
        data: { email: "ann@example.com", message: "Hello" },
        createdAt: event.timestamp,
        isRead: false,
        isStarred: false,
        isSpam: false,
        spamReason: null,
      },
    },
  });
  expect(call!.path).toBe("/hooks/formsvc");
  expect(call!.headers).toMatchObject({
    "content-type": "application/json",
    // The version `formsvc version` says, the binary's own.
    "user-agent": `formsvc/${JSON.parse((await runCli(["version", "--json"])).stdout).version}`,
    "webhook-id": expect.stringMatching(/^msg_/),
    "webhook-signature": expect.stringMatching(/^v1,[A-Za-z0-9+/]+=*$/),
  });
  expect(Math.abs(Number(call!.headers["webhook-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
  // A signature made with another secret, or over another body, does not verify.
  expect(() => new Webhook(`whsec_${Buffer.alloc(24, 7).toString("base64")}`).verify(call!.body, call!.headers)).toThrow();
  expect(() => new Webhook(created.body.secret).verify(call!.body.replace("Hello", "Hullo"), call!.headers)).toThrow();

  const [delivery] = await deliveriesWhen(s, (list) => list[0]?.status === "succeeded");
  expect(delivery).toMatchObject({
    webhookId: created.body.id,
    submissionId,
    messageId: call!.headers["webhook-id"],
    status: "succeeded",
    attempts: 1,
    responseStatus: 200,
    responseSnippet: "ok",
    error: null,
  });
  expect(delivery.durationMs).toBeGreaterThanOrEqual(0);

  // The list never shows the secret; the log never holds it.
  const listed = await s.api("GET", `/api/forms/${s.form.id}/webhooks`);
  expect(JSON.stringify(listed.body)).not.toContain(created.body.secret);
  expect(listed.body.webhooks[0]).not.toHaveProperty("secret");
  expect(s.server.stderr()).not.toContain(created.body.secret.slice(6));
}, 30_000);

test("a receiver that answers 500 twice gets the event on the third attempt, with the same webhook-id", async () => {
  const hook = receiver((n) => (n < 2 ? { status: 500, body: "database down" } : { status: 204 }));
  const s = await setup(await start());
  const { body: webhook } = await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  await s.post({ email: "bob@example.com" });
  const calls = await hook.waitFor(3);
  expect(new Set(calls.map((c) => c.headers["webhook-id"])).size).toBe(1);
  expect(new Set(calls.map((c) => c.body)).size).toBe(1);
  for (const call of calls) expect(() => new Webhook(webhook.secret).verify(call.body, call.headers)).not.toThrow();
  const [delivery] = await deliveriesWhen(s, (list) => list[0]?.status === "succeeded");
  expect(delivery).toMatchObject({ status: "succeeded", attempts: 3, responseStatus: 204, messageId: calls[0]!.headers["webhook-id"] });
  expect(hook.calls).toHaveLength(3);
}, 30_000);

test("a failing receiver's answer and code are in the delivery log while it waits for the next attempt", async () => {
  const hook = receiver(() => ({ status: 503, body: "maintenance until noon" }));
  const s = await setup(await start());
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  await s.post({ email: "carol@example.com" });
  const [delivery] = await deliveriesWhen(s, (list) => list[0]?.attempts >= 2);
  expect(delivery).toMatchObject({
    status: "pending",
    responseStatus: 503,
    responseSnippet: "maintenance until noon",
    error: "answered 503",
    nextAttemptAt: expect.any(String),
  });
}, 30_000);

test("a redirect is not followed: it counts as a failed attempt", async () => {
  const target = receiver();
  const hook = receiver(() => ({ status: 302, body: "" }));
  const s = await setup(await start());
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  await s.post({ email: "dan@example.com" });
  const [delivery] = await deliveriesWhen(s, (list) => list[0]?.attempts >= 1);
  expect(delivery).toMatchObject({ status: "pending", responseStatus: 302 });
  expect(target.calls).toHaveLength(0);
}, 30_000);

test("spam is never sent: a honeypot catch makes no delivery", async () => {
  const hook = receiver();
  const s = await setup(await start());
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  await s.post({ email: "bot@example.com", _gotcha: "http://spam.example" });
  const realId = await s.post({ email: "real@example.com" });
  const [call] = await hook.waitFor(1);
  expect(JSON.parse(call!.body).data.submission.id).toBe(realId);
  const list = await deliveriesWhen(s, (l) => l[0]?.status === "succeeded");
  expect(list.map((d) => d.submissionId)).toEqual([realId]);
  expect(hook.calls).toHaveLength(1);
}, 30_000);

test("redeliver sends the same event again, with the same webhook-id, and is logged", async () => {
  const hook = receiver();
  const s = await setup(await start());
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  await s.post({ email: "erin@example.com" });
  const [first] = await hook.waitFor(1);
  const [delivery] = await deliveriesWhen(s, (list) => list[0]?.status === "succeeded");
  const retried = await s.api("POST", `/api/forms/${s.form.id}/deliveries/${delivery.id}/retry`);
  expect(retried).toMatchObject({ status: 202, body: { id: delivery.id, status: "pending" } });
  const calls = await hook.waitFor(2);
  expect(calls[1]!.headers["webhook-id"]).toBe(first!.headers["webhook-id"]);
  expect(calls[1]!.body).toBe(first!.body);
  // And through the CLI, remote mode, by the nested address docs/api.md gives ("Webhooks") too.
  const cli = await runCli(["webhooks", "redeliver", s.form.slug, delivery.id], { env: { FORMSVC_URL: s.server.url, FORMSVC_KEY: s.key } });
  expect(cli).toEqual({ code: 0, stdout: "", stderr: `Queued delivery ${delivery.id} (${first!.headers["webhook-id"]}) to be sent again now.\n` });
  await hook.waitFor(3);
  const nested = await s.api("POST", `/api/forms/${s.form.id}/webhooks/${delivery.webhookId}/deliveries/${delivery.id}/retry`);
  expect(nested.status).toBe(202);
  const all = await hook.waitFor(4);
  expect(new Set(all.map((c) => c.headers["webhook-id"])).size).toBe(1);
}, 30_000);

test("SIGKILL between the commit and the delivery: the restarted server delivers the event", async () => {
  // The first attempt hangs at the receiver; the server dies in the middle of it.
  const hook = receiver((n) => (n === 0 ? "hang" : { status: 200, body: "ok" }));
  const env = { FORMSVC_WEBHOOK_TIMEOUT_MS: "1000" };
  const first = await start({ env });
  const s = await setup(first);
  const { body: webhook } = await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  const submissionId = await s.post({ email: "frank@example.com" });
  const [hung] = await hook.waitFor(1);
  first.proc.kill("SIGKILL");
  await first.proc.exited;

  const second = await start({ db: first.db, env });
  const [, delivered] = await hook.waitFor(2);
  const event = new Webhook(webhook.secret).verify(delivered!.body, delivered!.headers) as any;
  expect(event.data.submission.id).toBe(submissionId);
  expect(delivered!.headers["webhook-id"]).toBe(hung!.headers["webhook-id"]);
  const again = await setupOn(second, s);
  const [delivery] = await deliveriesWhen(again, (list) => list[0]?.status === "succeeded");
  expect(delivery).toMatchObject({ status: "succeeded", attempts: 1 });
}, 30_000);

/** The same key and form on a restarted server. */
async function setupOn(server: ServerProcess, before: Setup): Promise<Setup> {
  return {
    ...before,
    server,
    async api(method, path, body) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${before.key}`, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null };
    },
  };
}

test("two server processes on one database send each delivery once", async () => {
  const hook = receiver();
  const first = await start();
  const s = await setup(first);
  const second = await start({ db: first.db });
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: hook.url });
  const other = await setupOn(second, s);
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const server = i % 2 === 0 ? s : other;
    const response = await fetch(`${server.server.url}/f/${s.form.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ n: i }),
    });
    ids.push(((await response.json()) as { id: string }).id);
  }
  await deliveriesWhen(s, (list) => list.length === 10 && list.every((d) => d.status === "succeeded"));
  expect(hook.calls).toHaveLength(10);
  expect(hook.calls.map((c) => JSON.parse(c.body).data.submission.id).toSorted()).toEqual(ids.toSorted());
}, 30_000);

test("a slack webhook gets a short message with the form name, the first fields and a link; a discord one too", async () => {
  const slack = receiver();
  const discord = receiver();
  const s = await setup(await start());
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: `${slack.url}/services/T0/B0/X`, format: "slack" });
  await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: `${discord.url}/api/webhooks/1/x`, format: "discord" });
  const id = await s.post({ email: "gina@example.com", message: "<!channel> @everyone *hi*", extra1: "a", extra2: "b" });
  const [slackCall] = await slack.waitFor(1);
  const [discordCall] = await discord.waitFor(1);
  const link = `${s.server.url}/dashboard/forms/${s.form.id}/submissions/${id}`;
  expect(JSON.parse(slackCall!.body)).toEqual({
    text: `New submission to *Contact*\nemail: gina@example.com\nmessage: &lt;!channel&gt; @everyone *hi*\nextra1: a\n(1 more field)\n${link}`,
  });
  expect(JSON.parse(discordCall!.body)).toEqual({
    content: `New submission to **Contact**\nemail: gina@example.com\nmessage: <!channel\\> @everyone \\*hi\\*\nextra1: a\n(1 more field)\n${link}`,
    allowed_mentions: { parse: [] },
  });
  expect(slackCall!.headers["webhook-signature"]).toBeUndefined();
}, 30_000);

test("SIGTERM during a send: the receiver's answer is waited for and recorded, and the restart does not send it again", async () => {
  let arrived: () => void = () => {};
  const inFlight = new Promise<void>((resolve) => (arrived = resolve));
  const calls: string[] = [];
  const slow = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      calls.push(await request.text());
      arrived();
      await Bun.sleep(1500);
      return new Response("ok");
    },
  });
  try {
    const s = await setup(await start());
    await s.api("POST", `/api/forms/${s.form.id}/webhooks`, { url: `http://127.0.0.1:${slow.port}/hook` });
    await s.post({ email: "ann@example.com" });
    await inFlight;
    s.server.proc.kill("SIGTERM");
    expect(await s.server.proc.exited).toBe(0);
    // Recorded before the exit, not left pending for the restart.
    const file = new Database(s.server.db, { readonly: true });
    expect(file.query("SELECT status, attempts FROM webhook_deliveries").all()).toEqual([{ status: "succeeded", attempts: 1 }]);
    file.close();
    const again = await setupOn(await start({ db: s.server.db }), s);
    const listed = await again.api("GET", `/api/forms/${s.form.id}/deliveries`);
    expect(listed.body.deliveries.map((d: { status: string; attempts: number }) => [d.status, d.attempts])).toEqual([["succeeded", 1]]);
    // The restarted sender finds nothing to send.
    await again.api("GET", "/healthz");
    expect(calls).toHaveLength(1);
  } finally {
    slow.stop(true);
  }
});
