// Every way formsvc sends mail, listed once (docs/deploy.md, "Choosing a mail transport"): --mail-url's scheme
// picks one. A new provider is one module beside these and one line here.
import type { AnyMailTransport, MailConnection } from "./kind.ts";
import { mailgun } from "./mailgun.ts";
import { postmark } from "./postmark.ts";
import { resend } from "./resend.ts";
import { sendgrid } from "./sendgrid.ts";
import { ses } from "./ses.ts";
import { smtp } from "./smtp.ts";
import { splitMailUrl } from "./url.ts";

export const MAIL_TRANSPORTS: readonly AnyMailTransport[] = [smtp, postmark, resend, ses, mailgun, sendgrid];

/** Every scheme --mail-url takes, as help and errors list them. */
export const MAIL_SCHEMES = MAIL_TRANSPORTS.flatMap((transport) => transport.schemes);

/** A mail URL read: its transport, what it says, and how it may be shown. */
export interface ChosenTransport {
  transport: AnyMailTransport;
  config: unknown;
  /** Scheme and host, never a secret. */
  shown: string;
  secrets: string[];
}

/** Reads a mail URL into its transport; an Error saying what is wrong (never repeating the value) when it is not one. */
export function chooseTransport(value: string): ChosenTransport {
  const url = splitMailUrl(value);
  const transport = MAIL_TRANSPORTS.find((candidate) => candidate.schemes.includes(url.scheme));
  if (!transport) throw new Error(`its scheme is none of ${MAIL_SCHEMES.map((s) => `${s}://`).join(", ")}`);
  const config = transport.parse(url);
  const secrets = transport.secrets(config).filter((secret) => secret.length > 0);
  return { transport, config, shown: transport.shown(config), secrets };
}

/** Opens the chosen transport: HTTP providers need nothing until they send, SMTP connects at the first send. */
export function openTransport(chosen: ChosenTransport, timeoutMs: number): MailConnection {
  return chosen.transport.open(chosen.config, { timeoutMs });
}

/** Text with every secret of the transport blanked out, for a log line, an answer or an error. */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let safe = text;
  for (const secret of secrets) safe = safe.split(secret).join("***");
  return safe;
}
