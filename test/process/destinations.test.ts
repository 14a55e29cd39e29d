import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";

// The destinations commands against a real server, in both modes, with a faithful ntfy and Telegram on loopback.
let server: ServerProcess;
let vendors: Vendors;
let key: string;
const SLUG = "routed";

const run = (mode: "local" | "remote", args: string[]) =>
  runCli(mode === "local" ? [...args, "--db", server.db] : args, {
    env: mode === "local" ? { FORMSVC_WEBHOOKS_ALLOW_PRIVATE: "true" } : { FORMSVC_URL: server.url, FORMSVC_KEY: key },
  });

const file = (name: string, value: unknown) => {
  const path = join(server.dir, name);
  writeFileSync(path, JSON.stringify(value));
  return path;
};

beforeAll(async () => {
  vendors = startVendors();
  server = await startServerProcess({ args: ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-retry-scale", "0.001"] });
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  expect((await run("local", ["forms", "create", "--name", "Routed", "--slug", SLUG])).code).toBe(0);
}, 30_000);

afterAll(async () => {
  vendors.stop();
  await server.stop();
  rmSync(server.dir, { recursive: true, force: true });
}, 30_000);

test("add, list in both modes without the secret, test, a post delivered and listed, remove", async () => {
  const config = file("ntfy.json", { topic: VENDOR.ntfy.topic, token: VENDOR.ntfy.token, baseUrl: vendors.url });
  const when = file("when.json", [{ field: "priority", op: "equals", value: "high" }]);
  const added = await run("remote", ["destinations", "add", SLUG, "ntfy", "--config-file", config, "--when-file", when]);
  expect(added).toEqual({
    code: 0,
    stdout: expect.stringMatching(/^dst_\w+\n$/),
    stderr: expect.stringMatching(/^Made ntfy destination dst_\w+\. Try it with: formsvc destinations test routed dst_\w+\n$/),
  });
  const id = added.stdout.trim();
  const [local, remote] = await Promise.all([run("local", ["destinations", "list", SLUG]), run("remote", ["destinations", "list", SLUG])]);
  expect(local).toEqual(remote);
  expect(local.stdout).toBe(`${id}\tntfy\tyes\ttopic=${VENDOR.ntfy.topic} baseUrl=${vendors.url}\tall\tpriority equals "high"\t${local.stdout.split("\t")[6]}`);
  for (const output of [added, local, remote, await run("remote", ["destinations", "list", SLUG, "--json"])]) {
    expect(output.stdout + output.stderr).not.toContain(VENDOR.ntfy.token);
  }

  const tried = await run("remote", ["destinations", "test", SLUG, id]);
  expect(tried.code).toBe(0);
  expect(tried.stderr).toMatch(/^Sent: the service answered 200 in \d+ ms\.\n$/);

  const form = (await (await fetch(`${server.url}/api/forms/${SLUG}`, { headers: { authorization: `Bearer ${key}` } })).json()) as { slug: string };
  for (const priority of ["low", "high"]) {
    const posted = await fetch(`${server.url}/f/${form.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ priority }),
    });
    expect(posted.status).toBe(200);
  }
  await vendors.waitFor("ntfy", 2);
  // The test's made-up submission, then only the post that meets the condition.
  expect(vendors.accepted.ntfy.map((n) => n.message)).toEqual(["email: test@example.com", "priority: high"]);
  const deadline = Date.now() + 15_000;
  let listed = await run("remote", ["webhooks", "deliveries", SLUG, "--destination", id]);
  while (!listed.stdout.includes("succeeded") && Date.now() < deadline) {
    await Bun.sleep(50);
    listed = await run("remote", ["webhooks", "deliveries", SLUG, "--destination", id]);
  }
  const rows = listed.stdout.trim().split("\n");
  expect(rows.map((row) => row.split("\t").slice(2, 4))).toEqual([[id, "succeeded"]]);
  expect(server.stderr()).not.toContain(VENDOR.ntfy.token);

  expect(await run("remote", ["destinations", "remove", SLUG, id])).toEqual({ code: 0, stdout: "", stderr: `Removed destination ${id}.\n` });
  expect(await run("local", ["destinations", "list", SLUG])).toMatchObject({ code: 0, stdout: "" });
});

test("a test the service refuses exits 1 with the reason; a bad config file is a usage error", async () => {
  const config = file("telegram.json", { botToken: "123:wrong", chatId: VENDOR.telegram.chatId, baseUrl: vendors.url });
  const id = (await run("local", ["destinations", "add", SLUG, "telegram", "--config-file", config])).stdout.trim();
  expect(await run("local", ["destinations", "test", SLUG, id])).toEqual({
    code: 1,
    stdout: "",
    stderr: expect.stringContaining("The test was refused: Telegram refused the bot token (401)."),
  });
  writeFileSync(join(server.dir, "broken.json"), "{");
  const broken = await run("remote", ["destinations", "add", SLUG, "ntfy", "--config-file", join(server.dir, "broken.json")]);
  expect(broken.code).toBe(2);
  expect(broken.stderr).toContain("--config-file");
});

test("local mode takes the loopback destination the server takes, without being told again; refuses it as the server does", async () => {
  const config = file("ntfy-local.json", { topic: "local-topic", baseUrl: vendors.url });
  // The operator's shell, with nothing of the server's flags in it.
  const added = await runCli(["destinations", "add", SLUG, "ntfy", "--config-file", config, "--db", server.db], { env: {} });
  expect({ code: added.code, stderr: added.stderr }).toEqual({ code: 0, stderr: expect.stringMatching(/^Made ntfy destination dst_/) });
  const strict = await startServerProcess({ args: ["--rate-limit", "0"] });
  try {
    const strictKey = (await runCli(["keys", "create", "--db", strict.db])).stdout.trim();
    expect((await runCli(["forms", "create", "--name", "Strict", "--slug", "strict", "--db", strict.db], { env: {} })).code).toBe(0);
    const args = ["destinations", "add", "strict", "ntfy", "--config-file", config];
    const local = await runCli([...args, "--db", strict.db], { env: {} });
    const remote = await runCli(args, { env: { FORMSVC_URL: strict.url, FORMSVC_KEY: strictKey } });
    expect(local).toEqual(remote);
    expect(local.code).toBe(2);
    expect(local.stderr).toContain("is a loopback address");
  } finally {
    await strict.stop();
  }
});
