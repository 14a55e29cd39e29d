import { afterAll, beforeAll, expect, test } from "bun:test";
import { SMTPServer } from "smtp-server";
import { startSender, type NotificationSender } from "../../src/workers/mail-sender.ts";
import { publicFixture, type PublicFixture } from "../api/public-support.ts";

// The mail sender against a real SMTP server (smtp-server) that refuses the recipient for good: a 5xx answer is
// not retried, and nothing of the submitter's address reaches the server's log, which outlives an erasure.

let fx: PublicFixture;
let smtp: SMTPServer;
let port: number;
const recipients: string[] = [];

beforeAll(async () => {
  fx = await publicFixture();
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onRcptTo(address, _session, done) {
      recipients.push(address.address);
      // What Postfix says of an address it will never take, quoting it (with a stray control character).
      const refusal = Object.assign(new Error(`5.1.3 <${address.address}>: Bad recipient address syntax\u0007`), { responseCode: 501 });
      done(refusal);
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
  port = (smtp.server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => smtp.close(resolve));
  fx.close();
});

test("a 501 refusal of a confirmation's recipient fails it at once, and the log names neither the address nor a raw control", async () => {
  const form = await fx.form({ confirmation: { enabled: true, subject: "Thanks", text: "We got it." } });
  const answer = await fx.post(form.slug, { body: { email: "victim@x.test", message: "hi" }, headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);
  const lines: string[] = [];
  let failed: (line: string) => void = () => {};
  const firstFailure = new Promise<string>((resolve) => {
    failed = resolve;
  });
  let sender: NotificationSender | null = null;
  try {
    sender = startSender(fx.t.services.notifications, {
      mailUrl: `smtp://127.0.0.1:${port}`,
      from: { name: "formsvc", address: "formsvc@localhost" },
      // A retry, were there one, would be due at once.
      retryBaseMs: 1,
      log: {
        line: (text) => {
          lines.push(text);
          if (text.includes("failed")) failed(text);
        },
        error: (message) => lines.push(message),
      },
    });
    sender.wake();
    const line = await firstFailure;
    expect(line).toMatch(/^notification ntf_\w+: attempt 1 failed, refused for good, not retried: .*501 5\.1\.3 <<address>>/);
  } finally {
    await sender?.stop();
  }
  const listed = await fx.t.request("GET", `/api/forms/${form.id}/notifications`, { key: fx.key });
  const [entry] = ((await listed.json()) as { notifications: { kind: string; status: string; attempts: number; lastError: string }[] }).notifications;
  expect(entry).toMatchObject({ kind: "confirmation", status: "failed", attempts: 1, lastError: expect.stringContaining("501") });
  expect(recipients).toEqual(["victim@x.test"]);
  expect(lines.join("\n")).not.toContain("victim");
  expect(lines.join("\n")).not.toContain("\u0007");
});
