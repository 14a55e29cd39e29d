import { afterAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { freePort, startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";

// The notification outbox as an operator meets it: a retry of what is pending, and a stop during a send.
let server: ServerProcess | undefined;
let smtp: SmtpSink | undefined;
afterAll(async () => {
  if (server?.proc.exitCode === null) await server.stop();
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

/** A minimal SMTP server that takes its time to accept a message: `accepting` resolves when a message is in. */
function slowSmtp(delayMs: number) {
  let accepting!: () => void;
  const inFlight = new Promise<void>((resolve) => (accepting = resolve));
  const listener = Bun.listen<{ data: boolean; buffer: string }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { data: false, buffer: "" };
        socket.write("220 slow.test ESMTP\r\n");
      },
      data(socket, chunk) {
        socket.data.buffer += new TextDecoder().decode(chunk);
        for (;;) {
          if (socket.data.data) {
            const end = socket.data.buffer.indexOf("\r\n.\r\n");
            if (end < 0) return;
            socket.data.buffer = socket.data.buffer.slice(end + 5);
            socket.data.data = false;
            accepting();
            setTimeout(() => socket.write("250 2.0.0 queued\r\n"), delayMs);
            continue;
          }
          const line = socket.data.buffer.indexOf("\r\n");
          if (line < 0) return;
          const command = socket.data.buffer.slice(0, line).toUpperCase();
          socket.data.buffer = socket.data.buffer.slice(line + 2);
          if (command.startsWith("EHLO")) socket.write("250-slow.test\r\n250 8BITMIME\r\n");
          else if (command.startsWith("DATA")) {
            socket.data.data = true;
            socket.write("354 go on\r\n");
          } else if (command.startsWith("QUIT")) {
            socket.write("221 bye\r\n");
            socket.end();
          } else socket.write("250 OK\r\n");
        }
      },
    },
  });
  return { port: listener.port, inFlight, stop: () => listener.stop(true) };
}

test("SIGTERM during a send: the send finishes and is recorded as sent, then the server exits 0", async () => {
  const slow = slowSmtp(1500);
  const stopping = await startServerProcess({ args: ["--rate-limit", "0", "--smtp-url", `smtp://127.0.0.1:${slow.port}`] });
  try {
    expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--email", "owner@example.com", "--db", stopping.db])).code).toBe(0);
    const posted = await fetch(`${stopping.url}/f/contact`, { method: "POST", body: new URLSearchParams({ name: "Ann" }), redirect: "manual" });
    expect(posted.status).toBe(303);
    await slow.inFlight;
    stopping.proc.kill("SIGTERM");
    expect(await stopping.proc.exited).toBe(0);
    const listed = await runCli(["notifications", "list", "contact", "--json", "--db", stopping.db]);
    expect(JSON.parse(listed.stdout).map((n: { status: string; attempts: number }) => [n.status, n.attempts])).toEqual([["sent", 1]]);
  } finally {
    slow.stop();
    rmSync(stopping.dir, { recursive: true, force: true });
  }
});
