import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { startServerInProcess, type InProcessServer } from "./world.ts";

let server: InProcessServer;
let receiver: Receiver;
let key: string;
const SLUG = "hooked";

/** Local mode on the server's file (told, as the server was, that loopback receivers are fine), or remote mode. */
const run = (mode: "local" | "remote", args: string[], env: Record<string, string> = {}) =>
  runCli(mode === "local" ? [...args, "--db", server.db] : args, {
    env: { ...(mode === "local" ? { FORMSVC_WEBHOOKS_ALLOW_PRIVATE: "true" } : { FORMSVC_URL: server.url, FORMSVC_KEY: key }), ...env },
  });

beforeAll(async () => {
  receiver = startReceiver();
  server = await startServerInProcess({ rateLimit: "0", webhooksAllowPrivate: true, webhookRetryScale: "0.001" });
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  expect((await run("local", ["forms", "create", "--name", "Hooked", "--slug", SLUG])).code).toBe(0);
}, 30_000);

afterAll(async () => {
  receiver.stop();
  await server.stop();
}, 30_000);

async function waitForDeliveries(count: number): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const result = await run("remote", ["webhooks", "deliveries", SLUG]);
    const rows = result.stdout.trim().split("\n").filter(Boolean);
    if (rows.length >= count && rows.every((row) => row.split("\t")[3] === "succeeded")) return result.stdout;
    if (Date.now() > deadline) throw new Error(`deliveries never settled: ${result.stdout}`);
    await Bun.sleep(50);
  }
}

test("webhooks add prints the secret alone, list shows the same in both modes, a post arrives signed, redeliver sends it again", async () => {
  const added = await run("remote", ["webhooks", "add", SLUG, `${receiver.url}/crm`, "--description", "CRM"]);
  expect(added).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}\n$/),
    stderr: expect.stringMatching(/^Made webhook whk_\w+ for http:\/\/127\.0\.0\.1:\d+\/crm\. Its signing secret is shown only now: keep it safe\.\n$/),
  });
  const secret = added.stdout.trim();
  const webhookId = /(whk_\w+)/.exec(added.stderr)![1]!;

  const [local, remote] = await Promise.all([run("local", ["webhooks", "list", SLUG]), run("remote", ["webhooks", "list", SLUG])]);
  expect(local).toEqual(remote);
  expect(local.stdout).toBe(`${webhookId}\t${receiver.url}/crm\tstandard\t${secret.slice(0, 10)}…\tCRM\t${local.stdout.split("\t")[5]}`);
  expect(local.stdout).not.toContain(secret);
  const json = JSON.parse((await run("local", ["webhooks", "list", SLUG, "--json"])).stdout);
  expect(json).toEqual([
    {
      id: webhookId,
      formId: expect.stringMatching(/^frm_/),
      url: `${receiver.url}/crm`,
      description: "CRM",
      format: "standard",
      when: [],
      secretPrefix: `${secret.slice(0, 10)}…`,
      createdAt: expect.any(String),
    },
  ]);

  const posted = await fetch(`${server.url}/f/${SLUG}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ email: "ann@example.com" }),
  });
  const { id: submissionId } = (await posted.json()) as { id: string };
  const [call] = await receiver.waitFor(1);
  expect((new Webhook(secret).verify(call!.body, call!.headers) as any).data.submission.id).toBe(submissionId);

  const listed = await waitForDeliveries(1);
  const [deliveryId, , hook, status, attempts, code, , submission, messageId] = listed.trim().split("\t");
  expect({ hook, status, attempts, code, submission, messageId }).toEqual({
    hook: webhookId,
    status: "succeeded",
    attempts: "1",
    code: "200",
    submission: submissionId,
    messageId: call!.headers["webhook-id"],
  });
  expect((await run("local", ["webhooks", "deliveries", SLUG])).stdout).toBe(listed);
  expect((await run("local", ["webhooks", "deliveries", SLUG, "--webhook", webhookId])).stdout).toBe(listed);
  expect(JSON.parse((await run("remote", ["webhooks", "deliveries", SLUG, "--json"])).stdout)).toEqual([
    expect.objectContaining({ id: deliveryId, status: "succeeded", responseSnippet: "ok" }),
  ]);

  // Redelivered from the database file: the server finds it within its polling interval and sends it.
  const redelivered = await run("local", ["webhooks", "redeliver", SLUG, deliveryId!]);
  expect(redelivered).toEqual({ code: 0, stdout: "", stderr: `Queued delivery ${deliveryId} (${messageId}) to be sent again now.\n` });
  const calls = await receiver.waitFor(2);
  expect(calls[1]!.headers["webhook-id"]).toBe(messageId!);

  const rotated = await run("local", ["webhooks", "rotate", SLUG, webhookId]);
  expect(rotated.code).toBe(0);
  expect(rotated.stdout.trim()).not.toBe(secret);

  expect(await run("remote", ["webhooks", "remove", SLUG, webhookId])).toEqual({ code: 0, stdout: "", stderr: `Removed webhook ${webhookId}.\n` });
  expect((await run("local", ["webhooks", "list", SLUG])).stdout).toBe("");
  const again = await run("local", ["webhooks", "remove", SLUG, webhookId]);
  expect(again).toEqual({ code: 5, stdout: "", stderr: `formsvc: No webhook ${webhookId} on this form.\n` });
}, 30_000);

test("a refused address, a bad format or an unknown form: one line, the right exit code", async () => {
  const noPrivate = { FORMSVC_WEBHOOKS_ALLOW_PRIVATE: "" };
  const refused = await run("local", ["webhooks", "add", SLUG, "http://169.254.169.254/latest/meta-data"], noPrivate);
  expect(refused).toEqual({
    code: 2,
    stdout: "",
    stderr:
      "formsvc: URL must be a public address: 169.254.169.254 is a link-local (cloud metadata) address. A receiver on this machine or a private network needs the server started with --webhooks-allow-private (or FORMSVC_WEBHOOKS_ALLOW_PRIVATE=true).\n",
  });
  const format = await run("remote", ["webhooks", "add", SLUG, `${receiver.url}/x`, "--format", "teams"]);
  expect(format).toEqual({ code: 2, stdout: "", stderr: "formsvc: --format must be one of standard, slack, discord.\n" });
  const unknown = await run("remote", ["webhooks", "list", "no-such-form"]);
  expect(unknown).toEqual({ code: 5, stdout: "", stderr: "formsvc: No form no-such-form.\n" });
  const limit = await run("local", ["webhooks", "deliveries", SLUG, "--limit", "0"]);
  expect(limit.code).toBe(2);
  expect(limit.stderr).toStartWith("formsvc: --limit must be");
}, 30_000);
