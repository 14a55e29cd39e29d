import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSender, type NotificationSender } from "../../src/workers/mail-sender.ts";
import { publicFixture, type PublicFixture } from "../api/public-support.ts";
import { mailgunStandIn, postmarkStandIn, resendStandIn, sendgridStandIn, type ProviderStandIn } from "../helpers/mail-providers.ts";
import { sesStandIn } from "../helpers/ses.ts";

// Every HTTP transport against a stand-in of its provider that checks what the provider checks (the key where
// it reads it, SES's signature recomputed with the secret, the fields it requires) and answers in its shapes:
// a notification and a confirmation delivered through each, a 503 tried again and delivered once, a 422 not
// tried again and shown with the provider's words, and no secret in any log line or error.

const SECRETS = {
  postmark: "pm-server-token-5e1f",
  resend: "re_live_Zq8Xk2",
  ses: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYzEXAMPLEKEY",
  mailgun: "key-3ax6xnjp29jd6fds4gc373sgvjxteol0",
  sendgrid: "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",
};

interface Case {
  name: string;
  start(): ProviderStandIn;
  url(base: string): string;
}

const CASES: Case[] = [
  { name: "Postmark", start: () => postmarkStandIn(SECRETS.postmark), url: (base) => `postmark://${SECRETS.postmark}@?base=${base}` },
  { name: "Resend", start: () => resendStandIn(SECRETS.resend), url: (base) => `resend://${SECRETS.resend}@?base=${base}` },
  {
    name: "Amazon SES",
    start: () => sesStandIn("AKIAIOSFODNN7EXAMPLE", SECRETS.ses, "eu-west-1"),
    url: (base) => `ses://AKIAIOSFODNN7EXAMPLE:${encodeURIComponent(SECRETS.ses)}@eu-west-1?base=${base}`,
  },
  {
    name: "Mailgun",
    start: () => mailgunStandIn(SECRETS.mailgun, "mg.example.com"),
    url: (base) => `mailgun://${SECRETS.mailgun}@mg.example.com?base=${base}`,
  },
  { name: "SendGrid", start: () => sendgridStandIn(SECRETS.sendgrid), url: (base) => `sendgrid://${SECRETS.sendgrid}@?base=${base}` },
];

let fx: PublicFixture;
const running: { stop(): Promise<void> }[] = [];
const lines: string[] = [];

beforeAll(async () => {
  fx = await publicFixture({ rateLimit: 0 });
});
afterAll(async () => {
  for (const thing of running.reverse()) await thing.stop();
  fx.close();
  // Whatever went wrong or right, no log line held a key.
  for (const secret of Object.values(SECRETS)) expect(lines.join("\n")).not.toContain(secret);
});

/** Runs `work` with a sender on `mailUrl` whose log lines are kept; one at a time, so that each test's provider sends its mail. */
async function withSender(mailUrl: string, work: () => Promise<void>): Promise<void> {
  const started: NotificationSender = startSender(fx.t.services.notifications, {
    mailUrl,
    from: { name: "Forms", address: "forms@example.com" },
    retryBaseMs: 1,
    status: fx.t.services.mailStatus,
    log: { line: (text) => lines.push(text), error: (message, error) => lines.push(`${message}: ${String(error)}`) },
  });
  try {
    started.wake();
    await work();
  } finally {
    await started.stop();
  }
}

interface Entry {
  kind: string;
  status: string;
  attempts: number;
  lastError: string | null;
}

async function entries(formId: string): Promise<Entry[]> {
  const listed = await fx.t.request("GET", `/api/forms/${formId}/notifications`, { key: fx.key });
  return ((await listed.json()) as { notifications: Entry[] }).notifications;
}

/** Waits until every entry of the form is sent or failed (the sender runs beside the test). */
async function settled(formId: string, count: number): Promise<Entry[]> {
  for (;;) {
    const found = await entries(formId);
    if (found.length === count && found.every((entry) => entry.status === "sent" || entry.status === "failed")) return found;
    await Bun.sleep(20);
  }
}

async function formWithConfirmation(name: string) {
  return fx.form({ name, notificationEmail: "owner@example.com", confirmation: { enabled: true, subject: "Thanks, we got it", text: "We will answer soon." } });
}

async function post(slug: string) {
  const answer = await fx.post(slug, { body: { email: "ann@example.com", message: "Hello" }, headers: { accept: "application/json" } });
  expect(answer.status).toBe(200);
}

describe.each(CASES)("$name", (provider) => {
  test("a notification and a confirmation are delivered, From with its name, the owner's Reply-To the submitter", async () => {
    const standIn = provider.start();
    running.push(standIn);
    await withSender(provider.url(standIn.base), async () => {
      const form = await formWithConfirmation(`Contact ${provider.name}`);
      await post(form.slug);
      const mails = await standIn.waitFor(2);
      const byTo = Object.fromEntries(mails.map((mail) => [mail.to.join(","), mail]));
      expect(byTo["owner@example.com"]).toMatchObject({
        from: "Forms <forms@example.com>",
        subject: `New submission: Contact ${provider.name}`,
        replyTo: "ann@example.com",
      });
      expect(byTo["owner@example.com"]!.text).toContain("message: Hello");
      expect(byTo["ann@example.com"]).toMatchObject({ from: "Forms <forms@example.com>", subject: "Thanks, we got it" });
      expect(byTo["ann@example.com"]!.text).toContain("We will answer soon.");
      expect((await settled(form.id, 2)).map((entry) => [entry.kind, entry.status, entry.attempts]).sort()).toEqual([
        ["confirmation", "sent", 1],
        ["notification", "sent", 1],
      ]);
      const status = await fx.t.services.mailStatus.status();
      expect(status.lastSent?.detail).toContain(`${provider.name} accepted it:`);
    });
  });
});

test("Resend: a 503 is tried again and the message delivered once, with the same Idempotency-Key on both tries", async () => {
  const standIn = resendStandIn(SECRETS.resend);
  running.push(standIn);
  standIn.script({ status: 503 });
  await withSender(`resend://${SECRETS.resend}@?base=${standIn.base}`, async () => {
    const form = await fx.form({ name: "Retry", notificationEmail: "owner@example.com" });
    await post(form.slug);
    const [entry] = await settled(form.id, 1);
    expect(entry).toMatchObject({ status: "sent", attempts: 2 });
    expect(standIn.mails).toHaveLength(1);
    expect(standIn.requests).toHaveLength(2);
    expect(standIn.requests[0]!.headers.get("idempotency-key")).toMatch(/^formsvc-ntf_/);
    expect(standIn.requests[1]!.headers.get("idempotency-key")).toBe(standIn.requests[0]!.headers.get("idempotency-key"));
  });
});

test("Postmark: a 422 is not tried again, and the owner reads Postmark's own words", async () => {
  const standIn = postmarkStandIn(SECRETS.postmark);
  running.push(standIn);
  const words =
    "The 'From' address you supplied (forms@example.com) is not a Sender Signature on your account. Please add and confirm this address in order to be able to use it in the 'From' field of your messages.";
  standIn.script({ status: 422, body: { ErrorCode: 400, Message: words } });
  await withSender(`postmark://${SECRETS.postmark}@?base=${standIn.base}`, async () => {
    const form = await fx.form({ name: "Refused", notificationEmail: "owner@example.com" });
    await post(form.slug);
    const [entry] = await settled(form.id, 1);
    expect(entry).toMatchObject({
      status: "failed",
      attempts: 1,
      lastError: `Postmark refused the sender: ${words.replace("forms@example.com", "forms@example.com")} (422)`,
    });
    expect(standIn.requests).toHaveLength(1);
    const status = await fx.t.services.mailStatus.status();
    expect(status.lastFailure?.detail).toContain("Postmark refused the sender: The 'From' address you supplied (<address>) is not a Sender Signature");
    expect(lines.some((line) => /attempt 1 failed, refused for good, not retried: Postmark refused the sender/.test(line))).toBe(true);
  });
});

test("Amazon SES: a wrong secret fails the signature check, for good, and the secret is in no error", async () => {
  const standIn = sesStandIn("AKIAIOSFODNN7EXAMPLE", SECRETS.ses, "eu-west-1");
  running.push(standIn);
  const wrong = "not-the-secret/Wrong+Key";
  await withSender(`ses://AKIAIOSFODNN7EXAMPLE:${encodeURIComponent(wrong)}@eu-west-1?base=${standIn.base}`, async () => {
    const form = await fx.form({ name: "Signed", notificationEmail: "owner@example.com" });
    await post(form.slug);
    const [entry] = await settled(form.id, 1);
    expect(entry!.status).toBe("failed");
    expect(entry!.lastError).toStartWith("Amazon SES refused the key: SignatureDoesNotMatch: The request signature we calculated does not match");
    expect(entry!.lastError).toEndWith("(403)");
    expect(lines.join("\n")).not.toContain(wrong);
    expect(standIn.mails).toHaveLength(0);
  });
});

test("Mailgun: the form fields carry the Reply-To as h:Reply-To, and the sending domain is in the path", async () => {
  const standIn = mailgunStandIn(SECRETS.mailgun, "mg.example.com");
  running.push(standIn);
  await withSender(`mailgun://${SECRETS.mailgun}@mg.example.com?base=${standIn.base}`, async () => {
    const form = await fx.form({ name: "Fields", notificationEmail: "owner@example.com" });
    await post(form.slug);
    await standIn.waitFor(1);
    const fields = standIn.fields[0]!;
    expect({ from: fields.get("from"), to: fields.getAll("to"), replyTo: fields.get("h:Reply-To") }).toEqual({
      from: "Forms <forms@example.com>",
      to: ["owner@example.com"],
      replyTo: "ann@example.com",
    });
  });
});
