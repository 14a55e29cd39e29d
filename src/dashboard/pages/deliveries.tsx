/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { Form } from "../../domain/types.ts";
import type { Notification } from "../../services/outbox/notifications.ts";
import { can } from "../../services/people/roles.ts";
import { CIRCUIT_AFTER, type EndpointCircuit } from "../../services/outbox/shares.ts";
import type { Session } from "../../services/people/users.ts";
import { MailOff } from "./mail.tsx";
import { Csrf, FormHeader, Layout, Notice, Time } from "./layout.tsx";
import { DataTable } from "./table.tsx";

/** One kind of delivery (notification emails; webhooks can be added as another section). */
export interface DeliverySection {
  id: string;
  title: string;
  body: Child;
}

const STATE_TEXT: Record<string, string> = {
  pending: "waiting to be sent",
  sent: "sent",
  failed: "failed",
  recorded: "recorded (test form, not sent)",
  refused: "refused, not sent",
};

/** Why a confirmation email was not sent, in words. */
const REASON_TEXT: Record<string, string> = {
  spam: "spam",
  invalid_address: "no valid address in the field",
  per_address_limit: "this address already got one lately",
  per_form_daily_limit: "the form's daily limit was reached",
};

/** The form's notification emails with their state, newest first, each with a retry. */
export function NotificationsSection({
  session,
  form,
  notifications,
  page,
  hasMore,
  mailServer,
}: {
  session: Session;
  form: Form;
  notifications: Notification[];
  page: number;
  hasMore: boolean;
  /** The mail server in use (no password); null: mail is off. */
  mailServer: string | null;
}): DeliverySection {
  const base = `/dashboard/forms/${form.id}/deliveries`;
  // A viewer reads the log: no test email, no retry (the server refuses them all the same).
  const editable = can(session.user.role, "edit");
  return {
    id: "emails",
    title: "Notification emails",
    body: (
      <div>
        {mailServer && !editable ? (
          <p>
            Mail goes out through <code>{mailServer}</code>.
          </p>
        ) : mailServer ? (
          <form method="post" action={`${base}/test-email`} class="inline-actions">
            <Csrf session={session} />
            Mail goes out through <code>{mailServer}</code>.{" "}
            <button type="submit" class="secondary small">
              Send a test email
            </button>
          </form>
        ) : form.mode === "test" ? null : (
          <MailOff what="notification emails wait here, pending, and none is sent" />
        )}
        {form.notificationEmail ? (
          <p class="muted">Each submission is mailed to {form.notificationEmail}.</p>
        ) : (
          <p class="muted">
            This form has no notification email: set one in <a href={`/dashboard/forms/${form.id}/settings`}>Settings</a>.
          </p>
        )}
        {notifications.length === 0 ? (
          <p class="empty">No notification emails yet.</p>
        ) : (
          <DataTable
            label="Notification emails"
            rows={notifications}
            columns={[
              {
                title: "Created",
                cell: (n) => (
                  <a href={`/dashboard/forms/${form.id}/submissions/${n.submissionId}`}>
                    <Time iso={n.createdAt} />
                  </a>
                ),
              },
              {
                title: "To",
                cell: (n) => (
                  <>
                    {n.kind === "confirmation" ? <span class="tag">confirmation</span> : null} {n.to}
                  </>
                ),
              },
              { title: "Subject", cellClass: "clip", cell: (n) => n.subject },
              {
                title: "State",
                cell: (n) => (
                  <>
                    <span class={`state ${n.status}`}>{STATE_TEXT[n.status] ?? n.status}</span>
                    {n.sentAt ? (
                      <span class="muted">
                        {" "}
                        <Time iso={n.sentAt} />
                      </span>
                    ) : null}
                  </>
                ),
              },
              { title: "Attempts", num: true, cell: (n) => n.attempts },
              { title: "Last error", cellClass: "clip", cell: (n) => n.lastError ?? (n.reason ? (REASON_TEXT[n.reason] ?? n.reason) : "") },
              editable && {
                title: "Retry",
                hideTitle: true,
                cell: (n) =>
                  n.status === "recorded" || n.status === "refused" ? null : (
                    <form method="post" action={`${base}/emails/${n.id}/retry`}>
                      <Csrf session={session} />
                      <button type="submit" class="secondary small">
                        {n.status === "pending" ? "Send now" : "Retry"}
                      </button>
                    </form>
                  ),
              },
            ]}
          />
        )}
        <nav class="pages" aria-label="Pages of notification emails">
          {page > 1 ? <a href={`${base}?page=${page - 1}`}>← Newer</a> : null}
          {hasMore ? <a href={`${base}?page=${page + 1}`}>Older →</a> : null}
        </nav>
      </div>
    ),
  };
}

/** The form's webhook endpoints, each with its circuit: delivering, or paused after failing too often in a row. */
export function EndpointsSection({ form, circuits }: { form: Form; circuits: EndpointCircuit[] }): DeliverySection {
  return {
    id: "webhooks",
    title: "Webhook endpoints",
    body: (
      <div>
        <p class="muted">
          An endpoint that fails {CIRCUIT_AFTER} times in a row is paused as a whole: its deliveries wait, without using up their attempts, and one is tried
          again after a while (then longer each time it fails again).
        </p>
        {circuits.length === 0 ? (
          <p class="empty">
            This form has no webhook endpoints (<code>formsvc webhooks add</code> or the API adds one).
          </p>
        ) : (
          <DataTable
            label="Webhook endpoints"
            rows={circuits}
            columns={[
              { title: "URL", cellClass: "clip", cell: (c) => c.url },
              {
                title: "State",
                cell: (c) =>
                  c.openUntil === null ? (
                    <span class="state sent">delivering</span>
                  ) : (
                    <span>
                      <span class="state failed">paused</span>
                      <span class="muted">
                        {" "}
                        until <Time iso={new Date(c.openUntil).toISOString()} />
                      </span>
                    </span>
                  ),
              },
              { title: "Failures in a row", num: true, cell: (c) => c.failureStreak },
            ]}
          />
        )}
        <p class="muted">
          <a href={`/api/forms/${form.id}/deliveries`}>Each delivery</a> is listed by the API and <code>formsvc webhooks deliveries</code>.
        </p>
      </div>
    ),
  };
}

/** What became of the form's deliveries, one section per kind. */
export function DeliveriesPage({ session, form, sections, notice }: { session: Session; form: Form; sections: DeliverySection[]; notice?: string }) {
  return (
    <Layout title={`${form.name}: deliveries`} session={session} section="forms">
      <FormHeader form={form} tab="deliveries" />
      <Notice text={notice} />
      {sections.map((section) => (
        <section class="card" id={section.id} aria-labelledby={`${section.id}-title`}>
          <h2 id={`${section.id}-title`}>{section.title}</h2>
          {section.body}
        </section>
      ))}
    </Layout>
  );
}
