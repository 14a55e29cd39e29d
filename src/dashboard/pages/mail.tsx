/** @jsxImportSource hono/jsx */
import type { MailEvent, MailStatus, MailTestResult } from "../../services/outbox/mail-status.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf } from "./layout.tsx";

/** Said on every page that speaks of mail while the server has none: what does not happen, and how to turn it on. */
export function MailOff({ what }: { what: string }) {
  return (
    <p class="callout mail-off" role="note">
      {`Mail is off: ${what}. To turn it on, start the server with --mail-url (or FORMSVC_MAIL_URL), such as smtps://user:password@mail.example.com or postmark://TOKEN@; see docs/deploy.md.`}
    </p>
  );
}

/** What the Account page shows an admin of the server's mail. */
export interface MailPanel {
  /** Scheme and host of the transport (never a secret), or null while mail is off. */
  transport: string | null;
  status: MailStatus;
  /** The answer to the test just sent, if one was. */
  test?: MailTestResult;
}

const eventText = (event: MailEvent | null) => (event ? `${event.at}, ${event.kind}: ${event.detail}` : "none yet");

/** The Account page's mail card (admins): the transport, the last mail sent and the last failure, and a test to oneself. */
export function MailCard({ mail, session }: { mail: MailPanel; session: Session }) {
  return (
    <section class="card" id="mail" aria-labelledby="mail-title">
      <h2 id="mail-title">Mail</h2>
      {mail.transport ? (
        <p>
          Mail goes out through <code class="mail-transport">{mail.transport}</code>.
        </p>
      ) : (
        <MailOff what="no notification, confirmation or invitation is sent" />
      )}
      <p class="mail-last-sent">Last sent: {eventText(mail.status.lastSent)}</p>
      <p class={mail.status.lastFailure ? "mail-last-failure error" : "mail-last-failure"}>Last failure: {eventText(mail.status.lastFailure)}</p>
      {mail.test ? (
        <p class={mail.test.sent ? "notice mail-test-answer" : "error mail-test-answer"} role="status">
          {mail.test.sent ? `Test sent to ${session.user.email}: ${mail.test.answer}` : `Test not sent: ${mail.test.answer}`}
        </p>
      ) : null}
      {mail.transport ? (
        <form method="post" action="/dashboard/account/mail-test">
          <Csrf session={session} />
          <button type="submit">Send a test to me</button>
        </form>
      ) : null}
    </section>
  );
}
