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

/** How a message not taken for now (429, 5xx, no answer) is tried again: after each step times the base. */
export interface DirectRetries {
  baseMs: number;
  steps: readonly number[];
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
export function transportMailer(mailUrl: string, from: Mailbox, timeoutMs: number, outcomes?: MailOutcomes, retries?: DirectRetries): Mailer {
  const chosen = chooseTransport(mailUrl);
  const transport = openTransport(chosen, timeoutMs);
  const safe = (text: string) => withoutSecrets(headerSafe(text), chosen.secrets);

  /**
   * Tries a message that was not taken for now again in the background, on the outbox's steps: the person
   * who sent it was told at once (an invitation's link is shown on its page), and it may still arrive.
   * Kept in memory only: a restart drops what is still waiting, as the link on the page stays valid.
   */
  function later(message: DirectMessage, id: string, step: number): void {
    if (!retries || step >= retries.steps.length) return;
    const timer = setTimeout(() => {
      attempt(message, id).catch((error) => {
        if (!(error instanceof MailRefusal && error.permanent)) later(message, id, step + 1);
      });
    }, retries.steps[step]! * retries.baseMs);
    timer.unref?.();
  }

  async function attempt(message: DirectMessage, id: string): Promise<string> {
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
          id,
        }),
      );
      await outcomes?.sent(kind, answer);
      return answer;
    } catch (error) {
      const reason = safe(error instanceof Error ? error.message : String(error));
      await outcomes?.failed(kind, reason);
      throw new MailRefusal(reason, error instanceof MailRefusal ? error.permanent : false);
    }
  }

  return {
    server: chosen.shown,
    async send(message) {
      // One id for every try: a provider that dedupes (Resend's Idempotency-Key) sends it once.
      const id = newId("notification");
      try {
        return await attempt(message, id);
      } catch (error) {
        // A test says what happened now and is not sent again later; anything else is.
        if (message.kind !== "test" && !(error as MailRefusal).permanent) later(message, id, 0);
        throw error;
      }
    },
  };
}

/** A mailer on an SMTP server (the old name of transportMailer, for smtp:// and smtps://). */
export const smtpMailer = (smtpUrl: string, from: Mailbox, timeoutMs: number): Mailer => transportMailer(smtpUrl, from, timeoutMs);
