import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";

// A notification whose first attempt failed waits a minute for the next; `retry --pending` sends it now.
let server: ServerProcess | undefined;
let smtp: SmtpSink | undefined;
afterAll(async () => {
  await server?.stop();
  await smtp?.stop();
  if (server) rmSync(server.dir, { recursive: true, force: true });
});

test("notifications retry --pending sends a pending notification now, not at its next retry time", async () => {
  const port = await freePort();
  // Nothing listens on the SMTP port yet: the first attempt fails and the next is due a minute later.
  server = await startServerProcess({ args: ["--rate-limit", "0", "--smtp-url", `smtp://127.0.0.1:${port}`] });
  const minted = await runCli(["keys", "create", "--db", server.db]);
  const key = minted.stdout.trim();
  const env = { FORMSVC_URL: server.url, FORMSVC_KEY: key };
  expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--email", "owner@example.com"], { env })).code).toBe(0);
  const posted = await fetch(`${server.url}/f/contact`, { method: "POST", body: new URLSearchParams({ name: "Ann" }), redirect: "manual" });
  expect(posted.status).toBe(303);
  const deadline = Date.now() + 5000;
  let list: { status: string; attempts: number }[] = [];
  while (Date.now() < deadline) {
    list = JSON.parse((await runCli(["notifications", "list", "contact", "--json"], { env })).stdout);
    if (list[0]?.attempts === 1) break;
    await Bun.sleep(20);
  }
  expect(list.map((n) => [n.status, n.attempts])).toEqual([["pending", 1]]);

  smtp = await startSmtpSink({ port });
  // A plain retry takes only failed notifications: nothing to do here.
  expect(await runCli(["notifications", "retry", "contact"], { env })).toEqual({ code: 0, stdout: "", stderr: "No failed notifications to retry.\n" });
  const retried = await runCli(["notifications", "retry", "contact", "--pending", "--json"], { env });
  expect(retried).toEqual({ code: 0, stdout: '{\n  "retried": 1\n}\n', stderr: "Queued 1 pending or failed notification to be sent now.\n" });
  const [mail] = await smtp.waitFor(1);
  expect(mail!.text).toContain("name: Ann");
});
