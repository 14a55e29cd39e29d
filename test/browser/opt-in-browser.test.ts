import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";

// Double opt-in as the person who submitted lives it: a real Chromium opens the link of the email the real server
// sent through a real SMTP server; the owner's notification and a real webhook receiver wait for that click.

let server: ServerProcess;
let sink: SmtpSink;
let receiver: Receiver;
let key: string;
let browser: BrowserContext | undefined;
let launchError: Error | undefined;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = startReceiver();
  server = await startServerProcess({
    args: ["--rate-limit", "0", "--smtp-url", sink.url, "--webhooks-allow-private"],
    env: { FORMSVC_MAIL_RETRY_BASE_MS: "20" },
  });
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  try {
    browser = await launchBrowser();
  } catch (error) {
    launchError = error as Error;
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  if (server?.dir) rmSync(server.dir, { recursive: true, force: true });
  receiver?.stop();
  await sink?.stop();
});

async function newPage(): Promise<Page> {
  if (!browser) throw launchError ?? new Error("the browser did not start");
  return browser.newPage();
}

async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(answer.status).toBeLessThan(300);
  return (await answer.json()) as T;
}

async function post(slug: string, fields: Record<string, string>): Promise<string> {
  const answer = await fetch(`${server.url}/f/${slug}`, { method: "POST", body: new URLSearchParams(fields), headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);
  return ((await answer.json()) as { id: string }).id;
}

/** Polls (bounded) until `done` holds for what `read` gives. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} never happened: ${JSON.stringify(value)}`);
    await Bun.sleep(25);
  }
}

const mailTo = (address: string) => sink.messages().filter((m) => m.rcptTos.includes(address));
const linkIn = (text: string) => /^(http:\/\/\S+\/confirm\/\S+)$/m.exec(text)?.[1];

async function optInForm(owner: string): Promise<{ id: string; slug: string }> {
  const form = await api<{ id: string; slug: string }>("POST", "/api/forms", {
    name: "Newsletter",
    notificationEmail: owner,
    confirmation: {
      enabled: true,
      subject: "Please confirm your subscription to {{form}}",
      text: "Hello {{name}},\n\nopen this link to confirm your subscription:\n{{link}}\n\nIf you did not ask for it, do nothing.\n",
      doubleOptIn: true,
    },
  });
  await api("POST", `/api/forms/${form.id}/webhooks`, { url: receiver.url });
  return form;
}

test("the link in the email, opened in a browser, confirms: the owner's notification and the webhook go out then, exactly once", async () => {
  const form = await optInForm("owner@news.example");
  const id = await post(form.slug, { name: "Ann", email: "ann@reader.example" });
  const [mail] = await until(
    async () => mailTo("ann@reader.example"),
    (m) => m.length === 1,
    "the confirmation email",
  );
  const link = linkIn(mail!.text!);
  expect(link).toBeDefined();
  expect(mail!.text).toBe(`Hello Ann,\n\nopen this link to confirm your subscription:\n${link}\n\nIf you did not ask for it, do nothing.\n`);

  // Before the click: stored unconfirmed, nothing for the owner, no webhook event at all.
  expect((await api<{ submissions: any[] }>("GET", `/api/forms/${form.id}/submissions?filter=all`)).submissions).toEqual([]);
  const waiting = (await api<{ submissions: any[] }>("GET", `/api/forms/${form.id}/submissions?filter=unconfirmed`)).submissions;
  expect(waiting.map((s) => [s.id, s.confirmedAt])).toEqual([[id, null]]);
  expect((await api<{ notifications: any[] }>("GET", `/api/forms/${form.id}/notifications`)).notifications.map((n) => n.kind)).toEqual(["confirmation"]);
  expect((await api<{ deliveries: any[] }>("GET", `/api/forms/${form.id}/deliveries`)).deliveries).toEqual([]);
  expect(mailTo("owner@news.example")).toEqual([]);
  expect(receiver.calls).toEqual([]);

  const page = await newPage();
  const opened = await page.goto(link!);
  expect(opened?.status()).toBe(200);
  expect(await page.textContent("h1")).toBe("Confirmed");
  expect(await page.textContent("body")).toContain("your address is confirmed");

  await receiver.waitFor(1);
  await until(
    async () => mailTo("owner@news.example"),
    (m) => m.length === 1,
    "the owner's notification",
  );
  const [confirmed] = (await api<{ submissions: any[] }>("GET", `/api/forms/${form.id}/submissions?filter=all`)).submissions;
  expect(confirmed).toMatchObject({ id, confirmedAt: expect.stringMatching(/Z$/), confirmedFrom: "127.0.0.1" });
  expect(JSON.parse(receiver.calls[0]!.body).data.submission).toMatchObject({
    id,
    data: { name: "Ann", email: "ann@reader.example" },
    confirmedFrom: "127.0.0.1",
  });

  // Opened again: it says so, and nothing is sent twice.
  await page.goto(link!);
  expect(await page.textContent("h1")).toBe("Already confirmed");
  await page.close();
  const log = await until(
    async () => (await api<{ notifications: any[] }>("GET", `/api/forms/${form.id}/notifications`)).notifications,
    (list) => list.every((n) => n.status === "sent"),
    "every email sent",
  );
  expect(log.map((n) => n.kind).sort()).toEqual(["confirmation", "notification"]);
  expect((await api<{ deliveries: any[] }>("GET", `/api/forms/${form.id}/deliveries`)).deliveries.length).toBe(1);
  expect(mailTo("owner@news.example").length).toBe(1);
  expect(receiver.calls.length).toBe(1);
}, 60_000);

test("an expired link and a forged one say so, calmly, and confirm nothing", async () => {
  const form = await optInForm("owner2@news.example");
  const id = await post(form.slug, { name: "Bob", email: "bob@reader.example" });
  const [mail] = await until(
    async () => mailTo("bob@reader.example"),
    (m) => m.length === 1,
    "the confirmation email",
  );
  const link = linkIn(mail!.text!)!;
  // The same link as the server would have made a day before it expired: signed with the key it keeps.
  const db = new Database(server.db, { readonly: true });
  const stored = db.query("SELECT value FROM settings WHERE key = 'opt_in_key'").get() as { value: string };
  db.close();
  const payload = `${id}.${(Date.now() - 60_000).toString(36)}`;
  const signature = new Bun.CryptoHasher("sha256", Buffer.from(stored.value, "base64")).update(payload).digest("base64url");
  const expired = link.replace(/\/confirm\/.*$/, `/confirm/${payload}.${signature}`);

  const page = await newPage();
  expect((await page.goto(expired))?.status()).toBe(410);
  expect(await page.textContent("h1")).toBe("Link expired");
  const forged = link.replace(/.{4}$/, (end) => (end === "AAAA" ? "BBBB" : "AAAA"));
  expect((await page.goto(forged))?.status()).toBe(404);
  expect(await page.textContent("h1")).toBe("Link not valid");
  await page.close();
  const waiting = (await api<{ submissions: any[] }>("GET", `/api/forms/${form.id}/submissions?filter=unconfirmed`)).submissions;
  expect(waiting.map((s) => s.id)).toEqual([id]);
  expect(mailTo("owner2@news.example")).toEqual([]);
  expect(receiver.calls.filter((call) => call.body.includes(id))).toEqual([]);
}, 60_000);
