// SMTP through nodemailer (loaded at the first send): smtp:// with STARTTLS when offered, smtps:// with TLS.
import { offersSmtpUtf8 } from "../smtp-probe.ts";
import { type MailConnection, MailRefusal, type MailTransport } from "./kind.ts";

interface SmtpConfig {
  url: string;
  secure: boolean;
  user: string;
  password: string;
  host: string;
  port: number;
  /** The port as written, if it was: shown as written. */
  writtenPort: number | null;
}

/** How many connections a server's pool keeps open (the mail sender sends this many at once). */
export const SMTP_POOL = 4;
/** How long the server's answer on SMTPUTF8 is trusted before it is asked again. */
const SMTPUTF8_KNOWN_MS = 60_000;

/**
 * A mail server's 5xx answer to the message (RFC 5321 §4.2.1: a permanent refusal, such as 501 or 550): the same
 * message would be refused again, so it is not retried. A 4xx, a timeout or a lost connection is tried again.
 */
function refusalOf(error: unknown): MailRefusal {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  const permanent = typeof code === "number" && code >= 500 && code < 600;
  return new MailRefusal(error instanceof Error ? error.message : String(error), permanent);
}

function open(config: SmtpConfig, { timeoutMs }: { timeoutMs: number }): MailConnection {
  type Transport = { sendMail(options: object): Promise<{ response?: string }>; close(): void };
  let transport: Promise<Transport> | null = null;
  let utf8Known: { offered: boolean; until: number } | null = null;
  return {
    async send(mail, signal) {
      transport ??= import("nodemailer").then((nodemailer) =>
        nodemailer.default.createTransport({
          url: config.url,
          // Connections kept open and reused, rather than a new conversation (connect, greeting, login) per message.
          pool: true,
          maxConnections: SMTP_POOL,
          // A mail server that does not answer must not hold the queue (or a stop) for nodemailer's default minutes.
          connectionTimeout: timeoutMs,
          greetingTimeout: timeoutMs,
          socketTimeout: timeoutMs * 3,
        }),
      );
      try {
        const info = await (await transport).sendMail({
          from: { name: mail.from.name, address: mail.from.address },
          to: mail.to,
          ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
          replyTo: mail.replyTo ?? undefined,
          subject: mail.subject,
          text: mail.text,
          // RFC 3834: tells auto-responders (vacation replies) not to answer a machine.
          headers: { "Auto-Submitted": "auto-generated" },
          disableFileAccess: true,
          disableUrlAccess: true,
          signal,
        });
        return `the mail server took it: ${info.response ?? "no answer text"}`;
      } catch (error) {
        throw refusalOf(error);
      }
    },
    // What the server said of SMTPUTF8, kept for a minute: a run of such messages asks once, a changed server is heard soon.
    async takesUtf8Addresses() {
      if (utf8Known && Date.now() < utf8Known.until) return utf8Known.offered;
      const offered = await offersSmtpUtf8(config.url, timeoutMs);
      utf8Known = { offered, until: Date.now() + SMTPUTF8_KNOWN_MS };
      return offered;
    },
    close() {
      void transport?.then((t) => t.close());
    },
  };
}

export const smtp: MailTransport<SmtpConfig> = {
  schemes: ["smtp", "smtps"],
  label: "The mail server",
  example: "smtp://user:pass@host:587, smtps://user:pass@host",
  parse: (url) => {
    if (!url.host) throw new Error("it names no host: write it as smtp://user:pass@mail.example.com:587");
    const secure = url.scheme === "smtps";
    const port = url.port ?? (secure ? 465 : 587);
    return { url: url.href, secure, user: url.user, password: url.password, host: url.host, port, writtenPort: url.port };
  },
  // Scheme, user, host and port: the password never.
  shown: (config) =>
    `${config.secure ? "smtps" : "smtp"}://${config.user ? `${config.user}@` : ""}${config.host}${config.writtenPort ? `:${config.writtenPort}` : ""}`,
  secrets: (config) => [config.password, encodeURIComponent(config.password)],
  doctor: (config) => ({ port: { host: config.host, port: config.port } }),
  open,
};
