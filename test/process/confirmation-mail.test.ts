import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startSmtpSink, type ReceivedMail, type SmtpSink } from "../helpers/smtp.ts";

// The confirmation email as the person who submitted receives it: the real server process sending through a real
// SMTP server (smtp-server) on loopback. One server and one sink for the file; each test has forms of its own.

let server: ServerProcess;
let sink: SmtpSink;
let live: string;
let testKey: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  server = await startServerProcess({
    args: ["--rate-limit", "0", "--smtp-url", sink.url, "--mail-from", "Forms <forms@formsvc.example>", "--metrics"],
    env: { FORMSVC_MAIL_RETRY_BASE_MS: "20" },
  });
  const key = async (type: string) => (await runCli(["keys", "create", "--type", type, "--db", server.db])).stdout.trim();
  live = await key("live");
  testKey = await key("test");
});

afterAll(async () => {
  await server.stop();
  rmSync(server.dir, { recursive: true, force: true });
  await sink.stop();
});

async function api<T>(method: string, path: string, body?: unknown, key = live): Promise<T> {
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(answer.status).toBeLessThan(300);
  return (await answer.json()) as T;
}

const TEMPLATE = {
  enabled: true,
  subject: "Thanks for writing to {{form}}, {{name}}",
  text: "Hello {{name}},\n\nwe received your message:\n{{message}}\n\nThe {{form}} team\n",
  fromName: "Acme Support",
  replyTo: "support@acme.example",
};

const makeForm = (confirmation: Record<string, unknown>, key = live, notificationEmail: string | null = "owner@acme.example") =>
  api<{ id: string; slug: string }>("POST", "/api/forms", { name: "Acme", notificationEmail, confirmation }, key);

/** Posts as a plain HTML form does (urlencoded, then a 303). */
async function post(slug: string, fields: Record<string, string>): Promise<void> {
  const answer = await fetch(`${server.url}/f/${slug}`, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
  expect(answer.status).toBe(303);
}

/** The form's confirmation entries once none is pending any more (every page of the log, bounded wait). */
async function settled(formId: string, key = live): Promise<any[]> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const all: any[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = await api<{ notifications: any[]; pagination: { hasMore: boolean } }>(
        "GET",
        `/api/forms/${formId}/notifications?limit=100&offset=${offset}`,
        undefined,
        key,
      );
      all.push(...page.notifications);
      if (!page.pagination.hasMore) break;
    }
    const confirmations = all.filter((n) => n.kind === "confirmation");
    if (confirmations.every((n) => n.status !== "pending")) return confirmations;
    if (Date.now() > deadline) throw new Error(`confirmations still pending: ${JSON.stringify(confirmations.filter((n) => n.status === "pending"))}`);
    await Bun.sleep(25);
  }
}

const to = (address: string): ReceivedMail[] => sink.messages().filter((m) => m.rcptTos.includes(address));
const header = (mail: ReceivedMail, name: string) => mail.headers.filter(([n]) => n.toLowerCase() === name.toLowerCase()).map(([, v]) => v);

test("the visitor gets exactly one email: the owner's subject and text with the fields filled in, from the owner's name", async () => {
  const form = await makeForm(TEMPLATE);
  await post(form.slug, { name: "Ann", email: "ann@visitor.example", message: "Do you ship to Norway?" });
  expect((await settled(form.id)).map((n) => n.status)).toEqual(["sent"]);
  const [mail, ...more] = to("ann@visitor.example");
  expect(more).toEqual([]);
  expect(mail!.rcptTos).toEqual(["ann@visitor.example"]);
  expect(mail!.subject).toBe("Thanks for writing to Acme, Ann");
  expect(mail!.text).toBe("Hello Ann,\n\nwe received your message:\nDo you ship to Norway?\n\nThe Acme team\n");
  expect(header(mail!, "From")).toEqual(["Acme Support <forms@formsvc.example>"]);
  expect(mail!.replyTo).toBe("support@acme.example");
  expect(mail!.html).toBe(false);
});

test("hostile values (CR/LF, Bcc:, HTML, a URL, 10 KB) change no header and add no recipient or link", async () => {
  const form = await makeForm(TEMPLATE);
  await post(form.slug, { name: "Bo", email: "bo@visitor.example", message: "Plain." });
  const hostile = {
    name: "Eve\r\nBcc: victim@target.example\r\nX-Injected: yes",
    email: "eve@visitor.example",
    message: `<a href="https://evil.example/win">Claim</a>\r\nBcc: victim2@target.example\r\nvisit www.evil.example or mail prize@evil.example\n${"A".repeat(10 * 1024)}`,
  };
  await post(form.slug, hostile);
  // An address with a header after it is no address: stored, and no email at all.
  await post(form.slug, { name: "Mal", email: "mal@visitor.example\r\nBcc: victim3@target.example", message: "x" });
  const log = await settled(form.id);
  expect(log.map((n) => [n.status, n.reason]).sort()).toEqual([
    ["refused", "invalid_address"],
    ["sent", null],
    ["sent", null],
  ]);
  const [plain] = to("bo@visitor.example");
  const [attacked, ...more] = to("eve@visitor.example");
  expect(more).toEqual([]);
  expect(attacked!.rcptTos).toEqual(["eve@visitor.example"]);
  // The same headers as a harmless post's, no more: nothing was injected.
  const names = (mail: ReceivedMail) => mail.headers.map(([n]) => n.toLowerCase()).filter((n) => !["message-id", "date"].includes(n));
  expect(names(attacked!)).toEqual(names(plain!));
  expect(attacked!.subject).toBe(`Thanks for writing to Acme, Eve Bcc: victim[@]target[.]example X-Injected: yes`);
  expect(header(attacked!, "Subject")[0]).not.toMatch(/[\r\n]\S/);
  expect(
    sink
      .messages()
      .flatMap((m) => m.rcptTos)
      .filter((r) => r.includes("target.example") || r.startsWith("mal@")),
  ).toEqual([]);
  expect(attacked!.html).toBe(false);
  const text = attacked!.text!;
  expect(text).not.toContain("https://");
  expect(text).not.toContain("@evil.example");
  expect(text).not.toContain("www.evil.example");
  expect(text).toContain('<a href="hxxps://evil[.]example/win">Claim</a>');
  expect(text).toContain("Bcc: victim2[@]target[.]example");
  // Each value is cut to 500 characters: the 10 KB became a short email.
  expect(text.length).toBeLessThan(TEMPLATE.text.length + 2 * 600);
  expect(text.startsWith("Hello Eve\nBcc: victim[@]target[.]example\nX-Injected: yes,\n\nwe received your message:\n")).toBe(true);
  expect(text.endsWith("\n\nThe Acme team\n")).toBe(true);
});

test("spam and a test-mode form get no email: refused and recorded in the delivery log", async () => {
  const form = await makeForm(TEMPLATE);
  const staging = await makeForm(TEMPLATE, testKey);
  await post(form.slug, { name: "Bot", email: "bot@visitor.example", message: "x", _gotcha: "filled" });
  await post(staging.slug, { name: "Tess", email: "tess@visitor.example", message: "x" });
  // A later legitimate post: once its email has arrived, the ones before it had their chance to go out.
  await post(form.slug, { name: "Liv", email: "liv@visitor.example", message: "x" });
  expect((await settled(form.id)).map((n) => [n.to, n.status, n.reason])).toEqual([
    ["liv@visitor.example", "sent", null],
    ["bot@visitor.example", "refused", "spam"],
  ]);
  expect((await settled(staging.id, testKey)).map((n) => [n.to, n.status])).toEqual([["tess@visitor.example", "recorded"]]);
  await sink.waitFor(1);
  expect(to("liv@visitor.example").length).toBe(1);
  expect(to("bot@visitor.example")).toEqual([]);
  expect(to("tess@visitor.example")).toEqual([]);
});

test("200 posts naming the same address send one email; 200 naming 200 addresses send no more than the form's daily limit", async () => {
  // No owner notifications here: 400 of them would only make the confirmations wait their turn in the outbox.
  const form = await makeForm(TEMPLATE, live, null);
  const capped = await makeForm({ ...TEMPLATE, perFormDaily: 20 }, live, null);
  const burst = (slug: string, address: (i: number) => string) =>
    Promise.all(Array.from({ length: 200 }, (_, i) => post(slug, { name: `N${i}`, email: address(i), message: "again" })));
  await Promise.all([burst(form.slug, () => "target@visitor.example"), burst(capped.slug, (i) => `v${i}@many.example`)]);
  const same = await settled(form.id);
  expect(same.length).toBe(200);
  expect(same.filter((n) => n.status === "sent").length).toBe(1);
  expect(same.filter((n) => n.reason === "per_address_limit").length).toBe(199);
  const many = await settled(capped.id);
  expect(many.filter((n) => n.status === "sent").length).toBe(20);
  expect(many.filter((n) => n.reason === "per_form_daily_limit").length).toBe(180);
  expect(to("target@visitor.example").length).toBe(1);
  expect(sink.messages().filter((m) => m.rcptTos.some((r) => r.endsWith("@many.example"))).length).toBe(20);
}, 60_000);

test("/metrics counts the confirmation emails of every test above by status, and the refusals by reason", async () => {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, "\\$&")} (\\d+)$`, "m").exec(text)?.[1]);
  expect({
    sent: value('formsvc_confirmation_emails{status="sent"}'),
    recorded: value('formsvc_confirmation_emails{status="recorded"}'),
    refused: value('formsvc_confirmation_emails{status="refused"}'),
    pending: value('formsvc_confirmation_emails{status="pending"}'),
    spam: value('formsvc_confirmation_refusals{reason="spam"}'),
    invalid: value('formsvc_confirmation_refusals{reason="invalid_address"}'),
    perAddress: value('formsvc_confirmation_refusals{reason="per_address_limit"}'),
    perForm: value('formsvc_confirmation_refusals{reason="per_form_daily_limit"}'),
  }).toEqual({ sent: 25, recorded: 1, refused: 381, pending: 0, spam: 1, invalid: 1, perAddress: 199, perForm: 180 });
});
