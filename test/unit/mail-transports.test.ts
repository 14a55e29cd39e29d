import { describe, expect, test } from "bun:test";
import { loadServeConfig } from "../../src/config.ts";
import { SETTINGS } from "../../src/config-settings.ts";
import { chooseTransport, MAIL_TRANSPORTS } from "../../src/lib/mail-transports/index.ts";

// The registry of mail transports: each member is chosen by its scheme, shown without its secret, listed in
// --mail-url's help from the array itself; their addresses are read as docs/deploy.md says.

/** An address of each transport with a secret in it, and where its requests go. */
const ADDRESSES: Record<string, { url: string; secret: string; shown: string }> = {
  smtp: { url: "smtps://forms%40example.com:pa%3Ass@mail.example.com:465", secret: "pa:ss", shown: "smtps://forms@example.com@mail.example.com:465" },
  postmark: { url: "postmark://tok-123%2Fx@", secret: "tok-123/x", shown: "postmark://api.postmarkapp.com" },
  resend: { url: "resend://re_abc@", secret: "re_abc", shown: "resend://api.resend.com" },
  ses: { url: "ses://AKIAEXAMPLE:wJal%2Fr+K@eu-west-1", secret: "wJal/r+K", shown: "ses://eu-west-1 (email.eu-west-1.amazonaws.com)" },
  mailgun: { url: "mailgun://key-abc@mg.example.com?region=eu", secret: "key-abc", shown: "mailgun://mg.example.com (api.eu.mailgun.net)" },
  sendgrid: { url: "sendgrid://SG.abc.def@", secret: "SG.abc.def", shown: "sendgrid://api.sendgrid.com" },
};

describe.each(MAIL_TRANSPORTS.map((transport) => [transport.label, transport] as const))("%s", (_label, transport) => {
  const address = ADDRESSES[transport.schemes[0]!];

  test("has an address in this test, is chosen by its scheme, shows no secret, and --mail-url's help names it", () => {
    expect(address).toBeDefined();
    const chosen = chooseTransport(address!.url);
    expect(chosen.transport).toBe(transport);
    expect(chosen.shown).toBe(address!.shown);
    expect(chosen.shown).not.toContain(address!.secret);
    expect(chosen.secrets).toContain(address!.secret);
    expect(SETTINGS.mailUrl.help).toContain(transport.example);
  });
});

test("the schemes of the registry are distinct", () => {
  const schemes = MAIL_TRANSPORTS.flatMap((transport) => transport.schemes);
  expect(new Set(schemes).size).toBe(schemes.length);
});

test("each provider's endpoint: the documented one, or ?base= with the provider's path after it", () => {
  const endpoint = (url: string) => (chooseTransport(url).config as { endpoint: string }).endpoint;
  expect(endpoint("postmark://t@")).toBe("https://api.postmarkapp.com/email");
  expect(endpoint("resend://k@")).toBe("https://api.resend.com/emails");
  expect(endpoint("ses://id:s@us-east-2")).toBe("https://email.us-east-2.amazonaws.com/v2/email/outbound-emails");
  expect(endpoint("mailgun://k@mg.example.com")).toBe("https://api.mailgun.net/v3/mg.example.com/messages");
  expect(endpoint("mailgun://k@mg.example.com?region=eu")).toBe("https://api.eu.mailgun.net/v3/mg.example.com/messages");
  expect(endpoint("sendgrid://k@")).toBe("https://api.sendgrid.com/v3/mail/send");
  expect(endpoint("sendgrid://k@?base=http://127.0.0.1:9000/")).toBe("http://127.0.0.1:9000/v3/mail/send");
});

test("serve refuses a malformed or unknown --mail-url with one line naming it, never repeating the secret", () => {
  const refusal = (value: string) => {
    try {
      loadServeConfig({ mailUrl: value }, {});
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };
  expect(refusal("mandrill://sekrit@")).toBe(
    "mail-url is not a mail address formsvc can send through: its scheme is none of smtp://, smtps://, postmark://, resend://, ses://, mailgun://, sendgrid://",
  );
  expect(refusal("postmark://")).toBe("mail-url is not a mail address formsvc can send through: it has no key: write it as postmark://SERVER_TOKEN@");
  expect(refusal("ses://AKIA:sekrit@nowhere")).toBe(
    "mail-url is not a mail address formsvc can send through: it names no region: write it as ses://ACCESS_KEY_ID:SECRET@eu-west-1",
  );
  expect(refusal("mailgun://sekrit@mg.example.com?region=mars")).toBe("mail-url is not a mail address formsvc can send through: its region must be us or eu");
  expect(refusal("resend://sek%zzrit@")).toBe("mail-url is not a mail address formsvc can send through: its user has a % not followed by two hex digits");
  expect(refusal("resend://sekrit@?base=ftp://x")).toBe(
    "mail-url is not a mail address formsvc can send through: its base must be an http:// or https:// address",
  );
  expect(refusal("smtp://a:b@mail.example.com")).toBe("accepted");
  expect(() => loadServeConfig({ mailUrl: "resend://k@", smtpUrl: "smtp://mail.example.com" }, {})).toThrow(
    "mail-url and smtp-url both name a mail transport: give one of them",
  );
});

test("--smtp-url is the old name: the transport is its address, and the From defaults to its login", () => {
  const config = loadServeConfig({}, { FORMSVC_SMTP_URL: "smtps://forms%40example.com:pw@mail.example.com" });
  expect({ mailUrl: config.mailUrl, from: config.mailFrom }).toEqual({
    mailUrl: "smtps://forms%40example.com:pw@mail.example.com",
    from: { name: "formsvc", address: "forms@example.com" },
  });
  expect(loadServeConfig({}, { FORMSVC_MAIL_URL: "postmark://t@" }).mailFrom).toEqual({ name: "formsvc", address: "formsvc@localhost" });
});
