import { afterEach, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { freePort, startSmtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp.ts";
import type { StoredSubmission } from "../api/public-support.ts";

// The real server process sending through a real SMTP server (smtp-server) on loopback.

const started: { servers: ServerProcess[]; sinks: SmtpSink[] } = { servers: [], sinks: [] };
afterEach(async () => {
  for (const server of started.servers.splice(0)) {
    if (server.proc.exitCode === null && !server.proc.killed) await server.stop();
    rmSync(server.dir, { recursive: true, force: true });
  }
  for (const sink of started.sinks.splice(0)) await sink.stop();
});

/** Retries come after 20 ms, 100 ms, 600 ms, 2.4 s, 7.2 s rather than minutes. */
const FAST_RETRIES = { FORMSVC_MAIL_RETRY_BASE_MS: "20" };

async function serve(options: { smtpUrl?: string; db?: string; env?: Record<string, string> } = {}): Promise<ServerProcess> {
  const args = ["--rate-limit", "0", ...(options.smtpUrl ? ["--smtp-url", options.smtpUrl] : [])];
  const server = await startServerProcess({ db: options.db, args, env: { ...FAST_RETRIES, ...options.env } });
  started.servers.push(server);
  return server;
}

async function sink(port?: number): Promise<SmtpSink> {
  const smtp = await startSmtpSink({ port });
  started.sinks.push(smtp);
  return smtp;
}

interface Owner {
  key: string;
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  form(body: Record<string, unknown>): Promise<{ id: string; slug: string; submitUrl: string }>;
  notifications(formId: string): Promise<any[]>;
  stored(formId: string): Promise<StoredSubmission[]>;
}

/** The owner of `server`'s forms, with a key of `type` (made through the local CLI) and the management API. */
async function owner(server: ServerProcess, type: "live" | "test" = "live"): Promise<Owner> {
  const minted = await runCli(["keys", "create", "--type", type, "--db", server.db]);
  expect(minted.code).toBe(0);
  const key = minted.stdout.trim();
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const headers: Record<string, string> = { authorization: `Bearer ${key}` };
    if (body !== undefined) headers["content-type"] = "application/json";
    const answer = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    expect(answer.status).toBeLessThan(300);
    return (await answer.json()) as T;
  };
  return {
    key,
    api,
    form: (body) => api("POST", "/api/forms", { name: "Contact", notificationEmail: "owner@example.com", ...body }),
    notifications: async (formId) => (await api<{ notifications: any[] }>("GET", `/api/forms/${formId}/notifications`)).notifications,
    stored: async (formId) => (await api<{ submissions: StoredSubmission[] }>("GET", `/api/forms/${formId}/submissions?filter=all`)).submissions,
  };
}

/** Posts as a plain HTML form does (urlencoded, then a 303), so special fields arrive as a browser sends them. */
async function submit(submitUrl: string, fields: [string, string][]): Promise<void> {
  const answer = await fetch(submitUrl, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
  expect(answer.status).toBe(303);
}

/** Polls the notification list (bounded) until `done` holds for it. */
async function until(me: Owner, formId: string, done: (list: any[]) => boolean, timeoutMs = 4_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const list = await me.notifications(formId);
    if (done(list)) return list;
    if (Date.now() > deadline) throw new Error(`notifications never got there: ${JSON.stringify(list)}`);
    await Bun.sleep(20);
  }
}

/** What the server has said on stderr once it has said `text` (it goes on writing after "listening on"). */
async function saidOnStderr(server: ServerProcess, text: string): Promise<string> {
  const deadline = Date.now() + 5_000;
  while (!server.stderr().includes(text) && Date.now() < deadline) await Bun.sleep(10);
  return server.stderr();
}

const headerNames = (mail: ReceivedMail) => mail.headers.map(([name]) => name.toLowerCase());

test("a live form's owner gets a plain-text mail: _subject as Subject, _replyto as Reply-To, the fields in the body", async () => {
  const smtp = await sink();
  const server = await serve({ smtpUrl: smtp.url });
  const me = await owner(server);
  const form = await me.form({ name: "Contact" });
  await submit(form.submitUrl, [
    ["name", "Ann Example"],
    ["message", "Hello,\nplease call me back."],
    ["topics", "pricing"],
    ["topics", "support"],
    ["_subject", "Call-back request"],
    ["_replyto", "ann@example.com"],
  ]);
  const [mail] = await smtp.waitFor(1);
  const [stored] = await me.stored(form.id);
  expect(stored!.data).toEqual({ name: "Ann Example", message: "Hello,\nplease call me back.", topics: ["pricing", "support"] });
  expect(mail).toMatchObject({ rcptTos: ["owner@example.com"], subject: "Call-back request", replyTo: "ann@example.com", html: false });
  expect(mail!.text).toBe(
    [
      "New submission to Contact:",
      "",
      "name: Ann Example",
      "message: Hello,",
      "  please call me back.",
      "topics: pricing, support",
      "",
      `Submission: ${stored!.id}`,
      `Received: ${stored!.createdAt}`,
      `See it with: formsvc submissions get ${form.slug} ${stored!.id}`,
      "",
    ].join("\n"),
  );
  expect(mail!.headers).toContainEqual(["From", "formsvc <formsvc@localhost>"]);
  const [notification] = await until(me, form.id, (list) => list[0]?.status === "sent");
  expect(notification).toMatchObject({
    submissionId: stored!.id,
    to: "owner@example.com",
    subject: "Call-back request",
    replyTo: "ann@example.com",
    attempts: 1,
    lastError: null,
  });
  expect(notification.sentAt).not.toBeNull();
});

test("_cc copies up to 5 valid addresses, not stored; without _replyto a field named email is the Reply-To", async () => {
  const smtp = await sink();
  const server = await serve({ smtpUrl: smtp.url });
  const me = await owner(server);
  const form = await me.form({ name: "Contact" });
  await submit(form.submitUrl, [
    ["email", "ann@example.com"],
    ["_cc", "sales@example.com, boss@example.com"],
  ]);
  const [mail] = await smtp.waitFor(1);
  expect(mail).toMatchObject({ rcptTos: ["owner@example.com", "sales@example.com", "boss@example.com"], replyTo: "ann@example.com" });
  expect(mail!.headers).toContainEqual(["Cc", "sales@example.com, boss@example.com"]);
  expect((await me.stored(form.id)).map((s) => s.data)).toEqual([{ email: "ann@example.com" }]);
  const refused = await fetch(form.submitUrl, {
    method: "POST",
    headers: { accept: "application/json" },
    body: new URLSearchParams({ email: "ann@example.com", _cc: "a@example.com, not-an-address" }),
  });
  expect({ status: refused.status, errors: ((await refused.json()) as { errors: unknown[] }).errors }).toEqual({
    status: 400,
    errors: [{ field: "_cc", code: "invalid_email", message: expect.any(String) }],
  });
  expect(await me.stored(form.id)).toHaveLength(1);
});

test("spam is never mailed, and a test-mode form's notification is recorded, not sent", async () => {
  const smtp = await sink();
  const server = await serve({ smtpUrl: smtp.url });
  const live = await owner(server);
  const tester = await owner(server, "test");
  const spamForm = await live.form({ name: "Spammed" });
  const testForm = await tester.form({ name: "Staging" });
  const lastForm = await live.form({ name: "Last" });
  await submit(spamForm.submitUrl, [
    ["name", "Bot"],
    ["_gotcha", "http://spam.example"],
  ]);
  await submit(testForm.submitUrl, [["name", "Tess"]]);
  // Mail goes out in the order it was queued: once this one is in, the two before it had their chance.
  await submit(lastForm.submitUrl, [["name", "Last"]]);
  await smtp.waitFor(1);
  await until(live, lastForm.id, (list) => list[0]?.status === "sent");
  expect(smtp.messages().map((m) => m.subject)).toEqual(["New submission: Last"]);
  expect(await live.notifications(spamForm.id)).toEqual([]);
  expect((await tester.notifications(testForm.id)).map((n) => ({ status: n.status, attempts: n.attempts, sentAt: n.sentAt }))).toEqual([
    { status: "recorded", attempts: 0, sentAt: null },
  ]);
});

test("a header-injection attempt in _subject or _replyto adds no header and no recipient", async () => {
  const smtp = await sink();
  const server = await serve({ smtpUrl: smtp.url });
  const me = await owner(server);
  const form = await me.form({});
  await submit(form.submitUrl, [
    ["name", "Mallory"],
    ["_subject", "Hi\r\nBcc: victim@example.com"],
    ["_replyto", "mallory@example.com\r\nBcc: victim@example.com"],
  ]);
  const [mail] = await smtp.waitFor(1);
  expect(mail!.rcptTos).toEqual(["owner@example.com"]);
  expect(headerNames(mail!)).not.toContain("bcc");
  expect(headerNames(mail!)).not.toContain("reply-to");
  expect(mail!.subject).toBe("Hi Bcc: victim@example.com");
  expect(mail!.raw).not.toMatch(/^Bcc:/im);
  // What the owner's list shows is the one line that was sent, not what the submitter typed.
  const [listed] = await until(me, form.id, (list) => list[0]?.status === "sent");
  expect({ subject: listed.subject, replyTo: listed.replyTo }).toEqual({ subject: "Hi Bcc: victim@example.com", replyTo: null });
});

test("with the SMTP server down the notification stays pending and goes out once it is up; the password is never shown", async () => {
  const port = await freePort();
  const server = await serve({ smtpUrl: `smtp://formsvc:hunter2@127.0.0.1:${port}` });
  const said = `notification emails go out through smtp://formsvc:***@127.0.0.1:${port}, from formsvc <formsvc@localhost>\n`;
  expect(await saidOnStderr(server, said)).toContain(said);
  const me = await owner(server);
  const form = await me.form({});
  // The answer does not wait for the mail server: the post is answered while the mail cannot go.
  await submit(form.submitUrl, [["name", "Ann"]]);
  const [failing] = await until(me, form.id, (list) => list[0]?.attempts >= 1);
  expect(failing).toMatchObject({ status: "pending", sentAt: null, lastError: expect.stringContaining("ECONNREFUSED") });

  // The next retry is at most a few seconds away (see FAST_RETRIES).
  const smtp = await sink(port);
  const [mail] = await smtp.waitFor(1, 12_000);
  expect(mail!.subject).toBe("New submission: Contact");
  const [sent] = await until(me, form.id, (list) => list[0]?.status === "sent");
  expect(sent.attempts).toBeGreaterThanOrEqual(2);
  expect(smtp.messages()).toHaveLength(1);
  expect(JSON.stringify(await me.notifications(form.id)) + server.stderr()).not.toContain("hunter2");
}, 20_000);

test("without --smtp-url mail is off and notifications wait; after a crash, a server with SMTP sends them", async () => {
  const first = await serve();
  const off = "mail is off: notifications of live forms are kept pending, not sent. Turn it on with\n  --mail-url smtp://user:pass@mail.example.com:587";
  expect(await saidOnStderr(first, off)).toContain(off);
  const me = await owner(first);
  const form = await me.form({});
  await submit(form.submitUrl, [
    ["name", "Ann"],
    ["_subject", "One"],
  ]);
  await submit(form.submitUrl, [
    ["name", "Bob"],
    ["_subject", "Two"],
  ]);
  expect((await me.notifications(form.id)).map((n) => [n.subject, n.status])).toEqual([
    ["Two", "pending"],
    ["One", "pending"],
  ]);
  await first.stop("SIGKILL");

  const smtp = await sink();
  const second = await serve({ db: first.db, smtpUrl: smtp.url });
  const mails = await smtp.waitFor(2);
  expect(mails.map((m) => m.subject).toSorted()).toEqual(["One", "Two"]);
  const after = await owner(second);
  await until(after, form.id, (list) => list.every((n) => n.status === "sent"));
  expect(smtp.messages()).toHaveLength(2);
});

test("notifications that failed every attempt are sent once `formsvc notifications retry` puts them back", async () => {
  const port = await freePort();
  // Retries after 2, 10, 60, 240 and 720 ms: every attempt fails within about a second.
  const server = await serve({ smtpUrl: `smtp://127.0.0.1:${port}`, env: { FORMSVC_MAIL_RETRY_BASE_MS: "2" } });
  const me = await owner(server);
  const form = await me.form({});
  await submit(form.submitUrl, [["name", "Ann"]]);
  const [failed] = await until(me, form.id, (list) => list[0]?.status === "failed", 8_000);
  expect(failed).toMatchObject({ attempts: 6, sentAt: null, nextAttemptAt: null, lastError: expect.stringContaining("ECONNREFUSED") });

  const smtp = await sink(port);
  const env = { FORMSVC_URL: server.url, FORMSVC_KEY: me.key };
  expect(await runCli(["notifications", "retry", form.slug], { env })).toEqual({
    code: 0,
    stdout: "",
    stderr: "Queued 1 failed notification to be sent again.\n",
  });
  const [mail] = await smtp.waitFor(1, 5_000);
  expect(mail!.text).toContain("name: Ann");
  const [sent] = await until(me, form.id, (list) => list[0]?.status === "sent");
  expect(sent).toMatchObject({ attempts: 1, lastError: null });
  // Nothing failed is left: a second retry has nothing to do.
  expect(await runCli(["notifications", "retry", form.slug], { env })).toEqual({ code: 0, stdout: "", stderr: "No failed notifications to retry.\n" });
}, 20_000);
