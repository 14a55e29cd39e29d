import type { Mailbox } from "./lib/mail.ts";
import { needsSmtpUtf8, planAddresses } from "./lib/mail-address.ts";
import { offersSmtpUtf8 } from "./lib/smtp-probe.ts";

/** A message the dashboard sends at once (an invitation, a test email), not through the notification outbox. */
export interface DirectMessage {
  to: string;
  subject: string;
  text: string;
}

/** Mail sent at once, and the server it goes through as the dashboard shows it (never its password). */
export interface Mailer {
  /** `smtps://mail.example.com:465` with the user named but no password. */
  server: string;
  send(message: DirectMessage): Promise<void>;
}

/** The SMTP address as it may be shown: scheme, user, host and port; the password never. */
export function shownServer(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  return `${url.protocol}//${user}${url.host}`;
}

/**
 * A mailer on the SMTP server of `--smtp-url`; nodemailer is loaded at the first send. An address that needs
 * SMTPUTF8 goes only to a server that offers it; otherwise the send fails with the reason (see planAddresses).
 */
export function smtpMailer(smtpUrl: string, from: Mailbox, timeoutMs: number): Mailer {
  let transport: Promise<{ sendMail(options: object): Promise<unknown> }> | null = null;
  return {
    server: shownServer(smtpUrl),
    async send(message) {
      transport ??= import("nodemailer").then((nodemailer) =>
        nodemailer.default.createTransport({ url: smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs * 3 }),
      );
      const wanted = { from: from.address, to: message.to, cc: [], replyTo: null };
      const plan = planAddresses(wanted, needsSmtpUtf8(wanted) && (await offersSmtpUtf8(smtpUrl, timeoutMs)), "the address");
      if (plan.refusal) throw new Error(plan.refusal);
      await (await transport).sendMail({
        from: { name: from.name, address: plan.addresses.from },
        to: plan.addresses.to,
        subject: message.subject,
        text: message.text,
        headers: { "Auto-Submitted": "auto-generated" },
        disableFileAccess: true,
        disableUrlAccess: true,
      });
    },
  };
}
