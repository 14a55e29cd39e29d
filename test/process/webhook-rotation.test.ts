import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import { runCli } from "../helpers/cli.ts";
import { startReceiver, type Receiver, type ReceivedCall } from "../helpers/receiver.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

const servers: ServerProcess[] = [];
const receivers: Receiver[] = [];
afterEach(async () => {
  for (const receiver of receivers.splice(0)) receiver.stop();
  for (const server of servers.splice(0)) {
    await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
});

/** Whether the standardwebhooks package, as a receiver holding `secret` runs it, accepts the call. */
function accepts(secret: string, call: ReceivedCall): boolean {
  try {
    new Webhook(secret).verify(call.body, call.headers);
    return true;
  } catch {
    return false;
  }
}

test("after a rotation events carry the new and the old secret's signatures for the overlap, then the new one alone", async () => {
  const server = await startServerProcess({ args: ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-rotation-overlap", "3s"] });
  servers.push(server);
  const hook = startReceiver();
  receivers.push(hook);
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const api = async (path: string, body: unknown) =>
    (
      await fetch(`${server.url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      })
    ).json();
  const form = await api("/api/forms", { name: "Contact" });
  const created = await api(`/api/forms/${form.id}/webhooks`, { url: `${hook.url}/hook` });
  const submit = async (n: number) => {
    const answer = await fetch(`${server.url}/f/${form.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ n }),
    });
    expect(answer.status).toBe(200);
    return (await hook.waitFor(n))[n - 1]!;
  };

  const before = await submit(1);
  expect(before.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  const rotated = await api(`/api/forms/${form.id}/webhooks/${created.id}/rotate`, {});
  expect(rotated.secret).not.toBe(created.secret);

  const during = await submit(2);
  expect(during.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=* v1,[A-Za-z0-9+/]+=*$/);
  // A receiver still on the old secret and one already on the new both accept it.
  expect({ old: accepts(created.secret, during), new: accepts(rotated.secret, during) }).toEqual({ old: true, new: true });

  // Once the overlap is over, the old secret no longer signs.
  let n = 2;
  let after = during;
  const deadline = Date.now() + 15_000;
  while (after.headers["webhook-signature"]!.includes(" ") && Date.now() < deadline) {
    await Bun.sleep(250);
    after = await submit(++n);
  }
  expect(after.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect({ old: accepts(created.secret, after), new: accepts(rotated.secret, after) }).toEqual({ old: false, new: true });
});

test("--webhook-rotation-overlap takes a duration and refuses anything else", async () => {
  const bad = await runCli(["serve", "--port", "0", "--db", ":memory:", "--webhook-rotation-overlap", "soon"]);
  expect({ code: bad.code, stderr: bad.stderr }).toEqual({
    code: 2,
    stderr: 'formsvc: webhook-rotation-overlap must be a duration such as 90s, 15m, 24h or 7d, at most 30d, not "soon"\n',
  });
});
