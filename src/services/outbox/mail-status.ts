// The last mail sent and the last failure, whatever the mail was (a notification, a confirmation, an
// invitation, a test), as the Account page and `POST /api/mail/test` show them (docs/api.md, "Mail").
// Kept in the settings table: two rows, overwritten, so that no migration and no history is needed.
import { inArray } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { settings } from "../../db/schema.ts";
import { MailRefusal } from "../../lib/mail-transports/kind.ts";
import { isEmail, lazySchema, parseBody } from "../../lib/validate.ts";

/** One mail's outcome: when, what it was, and what the transport said (addresses blanked). */
export interface MailEvent {
  at: string;
  /** notification, confirmation, invitation, sign-in link, test */
  kind: string;
  detail: string;
}

export interface MailStatus {
  lastSent: MailEvent | null;
  lastFailure: MailEvent | null;
}

const KEYS = { lastSent: "mail_last_sent", lastFailure: "mail_last_failure" } as const;

/**
 * What may be kept of a transport's words past an erasure: a provider or mail server may quote the recipient
 * (a submitter's address, for a confirmation), so addresses are blanked.
 */
export function withoutAddresses(text: string): string {
  return text.replace(/[^\s<>()"',;:@]+@[^\s<>()"',;:@]+/g, "<address>");
}

function parsed(value: string | undefined): MailEvent | null {
  if (!value) return null;
  try {
    return JSON.parse(value) as MailEvent;
  } catch {
    return null;
  }
}

/** The mail status of this database: recorded by every send, read by the Account page and the mail test. */
export function mailStatusService(store: Store) {
  async function record(key: string, event: MailEvent): Promise<void> {
    const value = JSON.stringify({ ...event, detail: withoutAddresses(event.detail) });
    await store.write(async (tx) => {
      await tx.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value } });
    });
  }
  return {
    /** Records a mail the transport took. */
    sent: (kind: string, detail: string, at = Date.now()) => record(KEYS.lastSent, { at: new Date(at).toISOString(), kind, detail }),
    /** Records an attempt that failed, whether or not it will be tried again. */
    failed: (kind: string, detail: string, at = Date.now()) => record(KEYS.lastFailure, { at: new Date(at).toISOString(), kind, detail }),
    /** The last mail sent and the last failure, each null when there has been none. */
    async status(): Promise<MailStatus> {
      const rows = await store.db
        .select()
        .from(settings)
        .where(inArray(settings.key, Object.values(KEYS)));
      const value = (key: string) => rows.find((row) => row.key === key)?.value;
      return { lastSent: parsed(value(KEYS.lastSent)), lastFailure: parsed(value(KEYS.lastFailure)) };
    },
  };
}

export type MailStatusService = ReturnType<typeof mailStatusService>;

/** What sends a message at once: the server's mailer (src/mailer.ts), as the services see it. */
export interface TestMailer {
  server: string;
  send(message: { to: string; subject: string; text: string; kind?: string }): Promise<string>;
}

/** The body of `POST /api/mail/test` (the OpenAPI document is generated from it too). */
export const mailTestSchema = lazySchema((z) =>
  z.strictObject({
    to: z
      .string({ error: "to must be an email address." })
      .trim()
      .max(254, "to must be at most 254 characters.")
      .refine(isEmail, "to must be one email address such as you@example.com."),
  }),
);

/** What a mail test answers: whether the transport took it, and what the provider said. */
export interface MailTestResult {
  sent: boolean;
  /** Scheme and host of the transport, never its secret. */
  transport: string;
  /** The provider's answer (its message id), or why it did not take the message. */
  answer: string;
  /** For a message not taken: whether trying again later could help (429, 5xx, no answer), not when refused for good. */
  retryable: boolean;
}

/** Said when a test is asked of a server without a transport. */
export const MAIL_OFF = "Mail is off: start the server with --mail-url (or FORMSVC_MAIL_URL); see docs/deploy.md.";

/** Sends a test mail through the server's transport (`formsvc mail test`, the Account page's button); not sent while mail is off. */
export async function sendMailTest(mailer: TestMailer | null | undefined, body: unknown): Promise<MailTestResult> {
  const { to } = parseBody(await mailTestSchema(), body);
  if (!mailer) return { sent: false, transport: "none", answer: MAIL_OFF, retryable: false };
  const message = { to, subject: "formsvc test email", text: `This is a test email from formsvc, sent through ${mailer.server}.\n`, kind: "test" };
  try {
    return { sent: true, transport: mailer.server, answer: await mailer.send(message), retryable: false };
  } catch (error) {
    const permanent = error instanceof MailRefusal && error.permanent;
    return { sent: false, transport: mailer.server, answer: error instanceof Error ? error.message : String(error), retryable: !permanent };
  }
}
