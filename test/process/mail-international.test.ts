import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { smtpMailer } from "../../src/mailer.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startSmtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp.ts";

// Internationalised addresses (RFC 6531) through the real server process to a real SMTP server on loopback,
// once offering SMTPUTF8 and once not.

const started: { servers: ServerProcess[]; sinks: SmtpSink[] } = { servers: [], sinks: [] };
afterEach(async () => {
  for (const server of started.servers.splice(0)) {
    if (server.proc.exitCode === null && !server.proc.killed) await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
  for (const sink of started.sinks.splice(0)) await sink.stop();
});

/** A server sending through a sink that offers SMTPUTF8 or not, From a display name outside ASCII. */
async function serveWithSink(smtpUtf8: boolean): Promise<{ server: ServerProcess; smtp: SmtpSink; key: string }> {
  const smtp = await startSmtpSink({ smtpUtf8 });
  started.sinks.push(smtp);
  const args = ["--rate-limit", "0", "--smtp-url", smtp.url, "--mail-from", "Zoë's Formulare <forms@example.com>"];
  const server = await startServerProcess({ args, env: { FORMSVC_MAIL_RETRY_BASE_MS: "20" } });
  started.servers.push(server);
  const minted = await runCli(["keys", "create", "--type", "live", "--db", server.db]);
  expect(minted.code).toBe(0);
  return { server, smtp, key: minted.stdout.trim() };
}

async function makeForm(server: ServerProcess, key: string, notificationEmail: string): Promise<{ id: string; slug: string; submitUrl: string }> {
  const answer = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Kontakt", notificationEmail }),
  });
  expect(answer.status).toBe(201);
  return (await answer.json()) as { id: string; slug: string; submitUrl: string };
}

async function submit(submitUrl: string, fields: Record<string, string>): Promise<void> {
  const answer = await fetch(submitUrl, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
  expect(answer.status).toBe(303);
}

/** The form's notifications as the API lists them, once `done` holds for them (polling, bounded). */
async function notificationsWhen(server: ServerProcess, key: string, formId: string, done: (list: any[]) => boolean): Promise<any[]> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const answer = await fetch(`${server.url}/api/forms/${formId}/notifications`, { headers: { authorization: `Bearer ${key}` } });
    const { notifications } = (await answer.json()) as { notifications: any[] };
    if (done(notifications)) return notifications;
    if (Date.now() > deadline) throw new Error(`notifications never got there: ${JSON.stringify(notifications)}`);
    await Bun.sleep(20);
  }
}

const header = (mail: ReceivedMail, name: string) => mail.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
const headerBlock = (mail: ReceivedMail) => mail.raw.slice(0, mail.raw.indexOf("\r\n\r\n"));

test("a server offering SMTPUTF8 gets internationalised addresses as written, with SMTPUTF8 asked for; display names are RFC 2047 words", async () => {
  const { server, smtp, key } = await serveWithSink(true);
  const form = await makeForm(server, key, "josé@exämple.com");
  await submit(form.submitUrl, { message: "Hallo", _subject: "Grüße", _replyto: "用户@例子.广告", _cc: "ann@bücher.de, zoë@example.com" });
  const [mail] = await smtp.waitFor(1);
  expect(mail!.commands).toEqual([
    "MAIL FROM:<forms@example.com> SMTPUTF8",
    "RCPT TO:<josé@exämple.com>",
    // An IDN domain behind an ASCII local part travels as punycode, which every server takes.
    "RCPT TO:<ann@xn--bcher-kva.de>",
    "RCPT TO:<zoë@example.com>",
  ]);
  expect({ from: header(mail!, "From"), subject: header(mail!, "Subject"), replyTo: mail!.replyTo }).toEqual({
    from: "=?UTF-8?Q?Zo=C3=AB=27s_Formulare?= <forms@example.com>",
    subject: "=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=",
    replyTo: "用户@例子.广告",
  });
  // With SMTPUTF8 an address header carries the address as written, in UTF-8 (RFC 6532): it has no other form.
  const lines = headerBlock(mail!).split("\r\n");
  expect(lines).toContain("To: josé@exämple.com");
  expect(lines).toContain("Reply-To: 用户@例子.广告");
  const [notification] = await notificationsWhen(server, key, form.id, (list) => list[0]?.status === "sent");
  expect(notification).toMatchObject({ to: "josé@exämple.com", replyTo: "用户@例子.广告", attempts: 1, lastError: null });
});

test("without SMTPUTF8: domains go as punycode, an address with no ASCII form is left out of the copies and Reply-To, and said so", async () => {
  const { server, smtp, key } = await serveWithSink(false);
  const form = await makeForm(server, key, "owner@exämple.com");
  await submit(form.submitUrl, { message: "Hallo", _subject: "Grüße", _replyto: "zoë@example.com", _cc: "ann@bücher.de, josé@example.com" });
  const [mail] = await smtp.waitFor(1);
  const note =
    "Sent without the copy to josé@example.com and the Reply-To zoë@example.com: each needs SMTPUTF8, which the mail server does not offer (a local part outside ASCII cannot be encoded).";
  expect(mail!.commands).toEqual(["MAIL FROM:<forms@example.com>", "RCPT TO:<owner@xn--exmple-cua.com>", "RCPT TO:<ann@xn--bcher-kva.de>"]);
  expect({ replyTo: mail!.replyTo, to: header(mail!, "To"), cc: header(mail!, "Cc") }).toEqual({
    replyTo: null,
    to: "owner@xn--exmple-cua.com",
    cc: "ann@xn--bcher-kva.de",
  });
  // Not one raw byte outside ASCII in the headers of a message to a server that did not offer SMTPUTF8.
  expect(headerBlock(mail!)).toMatch(/^[\u0000-\u007f]*$/);
  expect(mail!.subject).toBe("Grüße");
  expect(mail!.text!.endsWith(`\n${note}\n`)).toBe(true);
  const [notification] = await notificationsWhen(server, key, form.id, (list) => list[0]?.status === "sent");
  expect(notification).toMatchObject({ status: "sent", attempts: 1, lastError: note });
});

test("without SMTPUTF8, a notification address with no ASCII form is refused at once, with the reason in the API and the CLI", async () => {
  const { server, smtp, key } = await serveWithSink(false);
  const refusedForm = await makeForm(server, key, "josé@example.com");
  const laterForm = await makeForm(server, key, "owner@example.com");
  await submit(refusedForm.submitUrl, { message: "Hallo" });
  await submit(laterForm.submitUrl, { message: "Hallo" });
  // Mail goes out in the order it was queued: once the later one is in, the first had its turn.
  const [mail] = await smtp.waitFor(1);
  expect(mail!.rcptTos).toEqual(["owner@example.com"]);
  const reason =
    "Not sent: the notification address josé@example.com needs SMTPUTF8, which the mail server does not offer (a local part outside ASCII cannot be encoded). Use an ASCII address or a mail server that offers SMTPUTF8, then retry.";
  const [notification] = await notificationsWhen(server, key, refusedForm.id, (list) => list[0]?.status === "failed");
  expect(notification).toMatchObject({ status: "failed", attempts: 1, lastError: reason, sentAt: null, nextAttemptAt: null });
  const listed = await runCli(["notifications", "list", refusedForm.slug, "--db", server.db]);
  expect({ code: listed.code, stderr: listed.stderr }).toEqual({ code: 0, stderr: "" });
  const [row] = listed.stdout.trim().split("\n");
  expect(row!.split("\t").slice(3, 6)).toEqual(["failed", "1", "josé@example.com"]);
  expect(row!.split("\t").at(-1)).toBe(reason);
  expect(smtp.messages()).toHaveLength(1);
});

test("the dashboard's own mail (invitations, the test email) to an address with no ASCII form goes only where SMTPUTF8 is offered", async () => {
  const from = { name: "Formulare", address: "forms@example.com" };
  const message = { to: "josé@bücher.de", subject: "Einladung", text: "Hallo\n" };
  const plain = await startSmtpSink({ smtpUtf8: false });
  const international = await startSmtpSink({ smtpUtf8: true });
  started.sinks.push(plain, international);
  await expect(smtpMailer(plain.url, from, 2_000).send(message)).rejects.toThrow(
    "Not sent: the address josé@bücher.de needs SMTPUTF8, which the mail server does not offer",
  );
  await smtpMailer(international.url, from, 2_000).send(message);
  const [mail] = await international.waitFor(1);
  expect(mail!.commands).toEqual(["MAIL FROM:<forms@example.com> SMTPUTF8", "RCPT TO:<josé@bücher.de>"]);
  expect(plain.messages()).toEqual([]);
});

test("a sender address with no ASCII form is named at start as needing SMTPUTF8; an ASCII one is not", async () => {
  const smtp = await startSmtpSink({ smtpUtf8: false });
  started.sinks.push(smtp);
  const ascii = await serveWithSink(false);
  const international = await startServerProcess({ args: ["--rate-limit", "0", "--smtp-url", smtp.url, "--mail-from", "Zoë <zoë@example.com>"] });
  started.servers.push(international);
  const warning = "warning: the sender address zoë@example.com (--mail-from) needs a mail server that offers SMTPUTF8";
  // The start lines follow the listening line: waited for (the mail line and its warning are one write).
  const said = async (server: ServerProcess, text: string) => {
    const deadline = Date.now() + 5_000;
    while (!server.stderr().includes(text) && Date.now() < deadline) await Bun.sleep(10);
    return server.stderr();
  };
  expect({
    ascii: (await said(ascii.server, "notification emails go out through")).includes("SMTPUTF8"),
    international: await said(international, warning),
  }).toEqual({ ascii: false, international: expect.stringContaining(warning) });
});
