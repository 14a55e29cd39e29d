import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createServer } from "node:net";
import { startDnsServer, type DnsServer } from "../helpers/dns-server.ts";
import { runInProcess } from "../helpers/fake-io.ts";
import { postmarkStandIn, resendStandIn, type ProviderStandIn } from "../helpers/mail-providers.ts";
import { startServerInProcess, type InProcessServer } from "./world.ts";

// `formsvc mail doctor` against a DNS server started here (--dns-server) and a port nobody listens on, and
// `formsvc mail test` through a Postmark stand-in, locally and through a server's POST /api/mail/test.

const TOKEN = "pm-token-9c1d7e0b";
let dns: DnsServer;
let postmark: ProviderStandIn;

beforeAll(async () => {
  dns = await startDnsServer({
    "good.example": { txt: ["v=spf1 include:spf.mtasv.net ~all"], mx: [{ preference: 10, exchange: "mx.good.example" }] },
    "_dmarc.good.example": { txt: ["v=DMARC1; p=quarantine"] },
    "bare.example": { txt: ["v=spf1 include:_spf.google.com ~all"] },
    "send.resent.example": { txt: ["v=spf1 include:amazonses.com ~all"] },
    "_dmarc.resent.example": { txt: ["v=DMARC1; p=none"] },
    "resent.example": { mx: [{ preference: 10, exchange: "feedback-smtp.eu-west-1.amazonses.com" }] },
  });
  postmark = postmarkStandIn(TOKEN);
});
afterAll(async () => {
  await dns?.stop();
  await postmark?.stop();
});

/** A port on loopback that nobody listens on: taken, then given back. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("mail doctor", () => {
  test("a domain with SPF naming Postmark, DMARC and MX passes every check", async () => {
    const run = await runInProcess(["mail", "doctor", "--mail-url", `postmark://${TOKEN}@`, "--from", "forms@good.example", "--dns-server", dns.address]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: "" });
    expect(run.stdout).toBe(
      [
        "ok    transport: mail goes through postmark://api.postmarkapp.com, from forms@good.example",
        "ok    spf: good.example: v=spf1 include:spf.mtasv.net ~all",
        "ok    dmarc: _dmarc.good.example: v=DMARC1; p=quarantine",
        "ok    mx: good.example: mx.good.example",
        "",
      ].join("\n"),
    );
    expect(run.stdout).not.toContain(TOKEN);
    expect(dns.asked).toContain("TXT _dmarc.good.example");
  });

  test("an SPF without the provider's include is a warn naming it; no DMARC fails; JSON with --format json", async () => {
    const run = await runInProcess([
      "mail",
      "doctor",
      "--mail-url",
      `postmark://${TOKEN}@`,
      "--from",
      "forms@bare.example",
      "--dns-server",
      dns.address,
      "--format",
      "json",
    ]);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({
      checks: [
        { name: "transport", status: "ok", detail: "mail goes through postmark://api.postmarkapp.com, from forms@bare.example" },
        {
          name: "spf",
          status: "warn",
          detail: 'bare.example\'s SPF record "v=spf1 include:_spf.google.com ~all" does not name Postmark: add include:spf.mtasv.net',
        },
        { name: "dmarc", status: "fail", detail: '_dmarc.bare.example has no DMARC record: add a TXT record "v=DMARC1; p=none; rua=mailto:you@bare.example"' },
        { name: "mx", status: "warn", detail: "bare.example has no MX record: replies to your mail cannot reach it, and some receivers refuse such a From" },
      ],
    });
  });

  test("without a transport the domain is checked all the same, and mail being off is a warning", async () => {
    const run = await runInProcess(["mail", "doctor", "--from", "forms@good.example", "--dns-server", dns.address]);
    expect(run.code).toBe(0);
    expect(run.stdout.split("\n").slice(0, 2)).toEqual([
      "warn  transport: mail is off: give --mail-url (FORMSVC_MAIL_URL) to check its provider too (docs/deploy.md)",
      "ok    spf: good.example: v=spf1 include:spf.mtasv.net ~all",
    ]);
  });

  test("for Resend the SPF is looked for on send.DOMAIN", async () => {
    const run = await runInProcess(["mail", "doctor", "--mail-url", "resend://re_key@", "--from", "Forms <forms@resent.example>", "--dns-server", dns.address]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("ok    spf: send.resent.example: v=spf1 include:amazonses.com ~all\n");
  });

  test("an SMTP port nobody answers on fails, with the advice to use an HTTP transport", async () => {
    const port = await closedPort();
    const run = await runInProcess([
      "mail",
      "doctor",
      "--mail-url",
      `smtp://forms:hunter2@127.0.0.1:${port}`,
      "--from",
      "forms@good.example",
      "--dns-server",
      dns.address,
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      `fail  smtp: port ${port} cannot be reached from this server: many VPS providers block outgoing SMTP; use an HTTP transport (--mail-url postmark://…) (127.0.0.1: ECONNREFUSED)\n`,
    );
    expect(run.stdout).toContain("ok    transport: mail goes through smtp://forms@127.0.0.1:");
    expect(run.stdout).not.toContain("hunter2");
  });

  test("a --dns-server that is not an address is a usage error; an unknown scheme names the setting", async () => {
    const bad = await runInProcess(["mail", "doctor", "--mail-url", `postmark://${TOKEN}@`, "--dns-server", "dns.example"]);
    expect({ code: bad.code, stderr: bad.stderr }).toEqual({
      code: 2,
      stderr: 'formsvc: --dns-server must be IP or IP:PORT such as 1.1.1.1 or 127.0.0.1:5353, not "dns.example"\n',
    });
    const scheme = await runInProcess(["mail", "doctor", "--mail-url", "mandrill://secretkey@"]);
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain("mail-url is not a mail address formsvc can send through: its scheme is none of smtp://, smtps://, postmark://");
    expect(scheme.stderr).not.toContain("secretkey");
  });
});

describe("mail test", () => {
  test("locally: the test goes through the transport and the provider's answer is printed", async () => {
    const run = await runInProcess([
      "mail",
      "test",
      "--to",
      "me@example.com",
      "--mail-url",
      `postmark://${TOKEN}@?base=${postmark.base}`,
      "--mail-from",
      "Forms <forms@example.com>",
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Postmark accepted it: b7bc2f4a-[0-9a-f-]+\n$/);
    expect(run.stderr).toBe(`Sent a test to me@example.com through postmark://${new URL(postmark.base).host}.\n`);
    expect(postmark.mails.at(-1)).toMatchObject({ from: "Forms <forms@example.com>", to: ["me@example.com"], subject: "formsvc test email" });
  });

  test("locally: a refusal is printed in the provider's words, exit 1, and the key appears nowhere", async () => {
    postmark.script({ status: 422, body: { ErrorCode: 300, Message: "Invalid 'To' address: 'me@example'." } });
    const run = await runInProcess(["mail", "test", "--to", "me@example.com", "--mail-url", `postmark://${TOKEN}@?base=${postmark.base}`]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("Postmark refused the message: Invalid 'To' address: 'me@example'. (422)\n");
    expect(`${run.stdout}${run.stderr}`).not.toContain(TOKEN);
  });

  test("remotely: the server's transport sends it (POST /api/mail/test), a 503 is said to be worth trying again", async () => {
    const resend = resendStandIn("re_remote_key_77");
    let server: InProcessServer | null = null;
    try {
      server = await startServerInProcess({ rateLimit: "0", mailUrl: `resend://re_remote_key_77@?base=${resend.base}`, mailFrom: "forms@example.com" });
      const minted = await runInProcess(["keys", "create", "--db", server.db, "--name", "ops"]);
      const env = { FORMSVC_URL: server.url, FORMSVC_KEY: minted.stdout.trim() };
      const sent = await runInProcess(["mail", "test", "--to", "me@example.com", "--json"], { env });
      expect(sent.code).toBe(0);
      expect(JSON.parse(sent.stdout)).toEqual({
        sent: true,
        transport: `resend://${new URL(resend.base).host}`,
        answer: "Resend accepted it: 49a3999c-0ce1-4ea6-ab68-afcd6dc2e001",
        retryable: false,
      });
      resend.script({ status: 503 });
      const failed = await runInProcess(["mail", "test", "--to", "me@example.com"], { env });
      expect(failed.code).toBe(1);
      expect(failed.stdout).toBe("Resend did not take the message for now: An unexpected error occurred. (503)\n");
      expect(failed.stderr).toBe(`Not sent through resend://${new URL(resend.base).host} (it may pass later).\n`);
      const bad = await runInProcess(["mail", "test", "--to", "nobody"], { env });
      expect({ code: bad.code, stderr: bad.stderr }).toEqual({ code: 2, stderr: "formsvc: --to must be one email address such as you@example.com.\n" });
      expect(`${sent.stdout}${failed.stdout}${failed.stderr}`).not.toContain("re_remote_key_77");
    } finally {
      await server?.stop();
      await resend.stop();
    }
  });
});
