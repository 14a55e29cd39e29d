// What every mail transport is (docs/deploy.md, "Choosing a mail transport"): one module per member of
// MAIL_TRANSPORTS (index.ts), each saying how its address is read, shown and sent through.
import type { Mailbox } from "../mail.ts";
import type { MailUrl } from "./url.ts";

/** One message as a transport sends it: plain text, addresses already checked. */
export interface OutgoingMail {
  from: Mailbox;
  to: string[];
  cc: string[];
  replyTo: string | null;
  subject: string;
  text: string;
  /** The same on every try of one message (the outbox's id): a provider that takes one dedupes retries by it. */
  id: string;
}

/** A send that did not go through: `permanent` when the same message would be refused again (not retried). */
export class MailRefusal extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
  ) {
    super(message);
    this.name = "MailRefusal";
  }
}

/** An open transport: sends one message and answers what the provider said of it (its message id). */
export interface MailConnection {
  send(mail: OutgoingMail, signal?: AbortSignal): Promise<string>;
  /** Whether addresses with non-ASCII characters may go out as they are (SMTPUTF8 offered). */
  takesUtf8Addresses(): Promise<boolean>;
  close(): void;
}

/** What `formsvc mail doctor` checks for a transport. */
export interface DoctorHints {
  /** The SPF include an HTTP provider's mail passes with, such as `include:spf.mtasv.net`. */
  spfInclude?: string;
  /** Where that SPF record is looked for, when not on the From's own domain (Resend: `send.DOMAIN`). */
  spfDomain?: (domain: string) => string;
  /** The SMTP server's host and port, to see whether it can be reached from here. */
  port?: { host: string; port: number };
}

/** A kind of mail transport: one per provider, listed once in MAIL_TRANSPORTS. */
export interface MailTransport<Config = unknown> {
  /** The URL schemes it is chosen by. */
  schemes: readonly string[];
  /** The provider's name as an owner reads it ("Postmark"). */
  label: string;
  /** Its address as help and docs show it, with placeholders for the secrets. */
  example: string;
  /** Reads the transport's address; an Error whose message never repeats a secret when it is not one. */
  parse(url: MailUrl): Config;
  /** Scheme and host as pages may show them: never a key or password. */
  shown(config: Config): string;
  /** What of the address is secret, to be blanked out of any text that might repeat it. */
  secrets(config: Config): string[];
  doctor(config: Config): DoctorHints;
  open(config: Config, options: { timeoutMs: number }): MailConnection;
}

/** A member of the registry with its own config type forgotten, so that they can sit in one array. */
// biome-ignore lint/suspicious/noExplicitAny: each member reads and gets back its own config; the array holds them all.
export type AnyMailTransport = MailTransport<any>;
