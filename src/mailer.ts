import type { Mailbox } from "./lib/mail.ts";
import { headerSafe } from "./lib/mail.ts";
import { needsSmtpUtf8, planAddresses } from "./lib/mail-address.ts";
import { chooseTransport, openTransport, withoutSecrets } from "./lib/mail-transports/index.ts";
import { MailRefusal } from "./lib/mail-transports/kind.ts";
import { newId } from "./lib/ids.ts";

/** A message sent at once (an invitation, a test email), not through the notification outbox. */
export interface DirectMessage {
  to: string;
  subject: string;
  text: string;
  /** What it is, as the Account page's last sent and last failure name it; "email" unless said. */
  kind?: string;
}

/** Where a mailer reports each outcome (the mail status service, in serve). */
export interface MailOutcomes {
  sent(kind: string, detail: string): Promise<void>;
  failed(kind: string, detail: string): Promise<void>;
}

/** Mail sent at once, and the transport it goes through as pages show it (never its secret). */
export interface Mailer {
  /** `smtps://user@mail.example.com:465`, `postmark://api.postmarkapp.com`: scheme and host, no secret. */
  server: string;
  /** Sends one message and answers what the transport said; a MailRefusal (its words, no secret) when it did not take it. */
  send(message: DirectMessage): Promise<string>;
}

/**
 * A mailer on the transport of --mail-url (docs/deploy.md, "Choosing a mail transport"). An address that needs
 * SMTPUTF8 goes only through a transport that takes it; otherwise the send fails with the reason (see planAddresses).
 */
export function transportMailer(mailUrl: string, from: Mailbox, timeoutMs: number, outcomes?: MailOutcomes): Mailer {
  const chosen = chooseTransport(mailUrl);
  const transport = openTransport(chosen, timeoutMs);
  const safe = (text: string) => withoutSecrets(headerSafe(text), chosen.secrets);
  return {
    server: chosen.shown,
    async send(message) {
      const kind = message.kind ?? "email";
      try {
        const wanted = { from: from.address, to: message.to, cc: [], replyTo: null };
        const plan = planAddresses(wanted, needsSmtpUtf8(wanted) && (await transport.takesUtf8Addresses()), "the address");
        if (plan.refusal) throw new MailRefusal(plan.refusal, true);
        const answer = safe(
          await transport.send({
            from: { name: from.name, address: plan.addresses.from },
            to: [plan.addresses.to],
            cc: [],
            replyTo: null,
            subject: message.subject,
            text: message.text,
            id: newId("notification"),
          }),
        );
        await outcomes?.sent(kind, answer);
        return answer;
      } catch (error) {
        const reason = safe(error instanceof Error ? error.message : String(error));
        await outcomes?.failed(kind, reason);
        throw new MailRefusal(reason, error instanceof MailRefusal ? error.permanent : false);
      }
    },
  };
}

/** A mailer on an SMTP server (the old name of transportMailer, for smtp:// and smtps://). */
export const smtpMailer = (smtpUrl: string, from: Mailbox, timeoutMs: number): Mailer => transportMailer(smtpUrl, from, timeoutMs);
