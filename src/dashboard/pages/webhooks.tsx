/** @jsxImportSource hono/jsx */
import { WEBHOOK_FORMATS } from "../../lib/webhook-message.ts";
import type { Form } from "../../domain/types.ts";
import { counted } from "../../lib/plural.ts";
import { can } from "../../services/people/roles.ts";
import type { Session } from "../../services/people/users.ts";
import type { WebhookDelivery } from "../../services/outbox/deliveries.ts";
import { DESTINATION_TARGETS } from "../../services/outbox/destination-types.ts";
import type { Destination } from "../../services/outbox/destinations.ts";
import type { Webhook } from "../../services/outbox/webhooks.ts";
import type { DeliverySection } from "./deliveries.tsx";
import { TYPE_INPUTS } from "./destinations.tsx";
import { CopyButton, Csrf, Field, Notice, Time } from "./layout.tsx";
import { DataTable } from "./table.tsx";
import type { SettingsSection } from "./settings.tsx";

/** A webhook's secret just made or rotated: shown once, after the redirect that followed the POST. */
export interface ShownSecret {
  webhookId: string;
  url: string;
  secret: string;
}

/** Webhooks and channels: the endpoints, add (secret shown once), rotate, delete, a test event, and their deliveries. */
export function webhooksSection({
  session,
  form,
  webhooks,
  secret,
  errors,
}: {
  session: Session;
  form: Form;
  webhooks: Webhook[];
  secret: ShownSecret | null;
  errors: Record<string, string | undefined>;
}): SettingsSection {
  const base = `/dashboard/forms/${form.id}/webhooks`;
  // Rendered twice: with its controls for an editor, without any for a reader.
  const content = (editable: boolean) => (
    <div>
      <p class="hint">
        Each submission that is not spam is POSTed to every address here, signed as the Standard Webhooks specification says; Slack and Discord addresses get a
        message in their own format.
      </p>
      {secret ? (
        <div class="new-key callout" role="status">
          <p>
            Signing secret of the webhook to {secret.url}: <strong>shown only this once</strong>.
          </p>
          <p class="key-line">
            <code id="webhook-secret">{secret.secret}</code> <CopyButton target="webhook-secret" />
          </p>
        </div>
      ) : null}
      {webhooks.length === 0 ? (
        <p class="empty">No webhooks yet.</p>
      ) : (
        <DataTable
          label="Webhooks"
          rows={webhooks}
          columns={[
            {
              title: "Address",
              clip: (webhook) => (webhook.description ? `${webhook.url} · ${webhook.description}` : webhook.url),
              cell: (webhook) => (
                <>
                  {webhook.url}
                  {webhook.description ? <span class="muted"> · {webhook.description}</span> : null}
                </>
              ),
            },
            { title: "Format", cell: (webhook) => webhook.format },
            { title: "Secret", cell: (webhook) => <code>{webhook.secretPrefix}</code> },
            editable && {
              title: "Actions",
              hideTitle: true,
              cellClass: "row-actions",
              cell: (webhook) => (
                <>
                  <form method="post" action={`${base}/${webhook.id}/rotate`}>
                    <Csrf session={session} />
                    <button
                      type="submit"
                      class="secondary small"
                      aria-label={`Rotate secret of ${webhook.url}`}
                      data-confirm="Make a new signing secret? The receiver must use the new one."
                    >
                      Rotate secret
                    </button>
                  </form>
                  <form method="post" action={`${base}/${webhook.id}/delete`}>
                    <Csrf session={session} />
                    <button type="submit" class="danger small" aria-label={`Delete ${webhook.url}`} data-confirm="Delete this webhook?">
                      Delete
                    </button>
                  </form>
                </>
              ),
            },
          ]}
        />
      )}
      {webhooks.length > 0 && !editable ? (
        <p>
          <a href={`/dashboard/forms/${form.id}/deliveries#webhooks`}>Deliveries of these webhooks</a>
        </p>
      ) : webhooks.length > 0 ? (
        <form method="post" action={`/dashboard/forms/${form.id}/test`} class="inline-actions">
          <Csrf session={session} />
          <input type="hidden" name="return" value="webhooks" />
          <button type="submit" class="secondary">
            Send a test event
          </button>{" "}
          <a href={`/dashboard/forms/${form.id}/deliveries#webhooks`}>Deliveries of these webhooks</a>
        </form>
      ) : null}
      {editable ? (
        <>
          <h3>Add a webhook</h3>
          <Notice text={errors.webhook} kind="error" />
          <form method="post" action={`${base}#webhooks`} class="grid">
            <Csrf session={session} />
            <Field label="Address" name="url" type="url" required placeholder="https://example.com/hooks/formsvc" error={errors.url} />
            <div class="field">
              <label for="f-format">Format</label>
              <select id="f-format" name="format">
                {WEBHOOK_FORMATS.map((format) => (
                  <option value={format}>{format === "standard" ? "standard (signed JSON)" : `${format} channel`}</option>
                ))}
              </select>
            </div>
            <Field label="Description (optional)" name="description" error={errors.description} />
            <div class="actions">
              <button type="submit">Add webhook</button>
            </div>
          </form>
        </>
      ) : null}
    </div>
  );
  return { id: "webhooks", title: "Webhooks and channels", body: content(true), view: content(false) };
}

/** What the receiver answered, and in how long, or why the delivery failed. */
const answerOf = (d: WebhookDelivery) =>
  d.responseStatus === null ? (d.error ?? "") : `${d.responseStatus}${d.durationMs === null ? "" : ` in ${d.durationMs} ms`}`;

const STATE: Record<string, string> = { pending: "waiting to be sent", succeeded: "delivered", failed: "failed" };

/** The form's webhook deliveries, newest first, each with what its last attempt got and a retry. */
export function webhookDeliveriesSection({
  session,
  form,
  deliveries,
  webhooks,
  destinations,
}: {
  session: Session;
  form: Form;
  deliveries: WebhookDelivery[];
  webhooks: Webhook[];
  destinations: Destination[];
}): DeliverySection {
  const address = (id: string) => webhooks.find((w) => w.id === id)?.url ?? id;
  // A delivery goes to a webhook's address or to one of the form's destinations, named by its type and where
  // it sends (a Teams channel's address is a secret: its type alone).
  const destination = (id: string) => {
    const found = destinations.find((d) => d.id === id);
    if (!found) return "a removed destination";
    const where = DESTINATION_TARGETS[found.type].map((key) => String(found.config[key] ?? "")).filter(Boolean);
    return [`${TYPE_INPUTS[found.type]?.title ?? found.type} destination`, ...where].join(" · ");
  };
  const target = (d: WebhookDelivery) => (d.webhookId ? address(d.webhookId) : destination(d.destinationId ?? ""));
  const editable = can(session.user.role, "edit");
  return {
    id: "webhooks",
    title: "Webhook deliveries",
    body:
      deliveries.length === 0 ? (
        webhooks.length > 0 ? (
          <p class="empty">No webhook deliveries yet: each submission that is not spam is sent to this form's {counted(webhooks.length, "webhook")}.</p>
        ) : (
          <p class="empty">
            No webhook deliveries yet: this form has no webhook. <a href={`/dashboard/forms/${form.id}/settings#webhooks`}>Add one in Settings</a>.
          </p>
        )
      ) : (
        <DataTable
          label="Webhook deliveries"
          rows={deliveries}
          columns={[
            {
              title: "Created",
              cell: (d) => (
                <a href={`/dashboard/forms/${form.id}/submissions/${d.submissionId}`}>
                  <Time iso={d.createdAt} />
                </a>
              ),
            },
            { title: "Address", clip: (d) => target(d), cell: (d) => target(d) },
            {
              title: "State",
              cell: (d) => (
                <>
                  <span class={`state ${d.status}`}>{STATE[d.status] ?? d.status}</span>
                  <span class="muted">{` · ${counted(d.attempts, "attempt")}`}</span>
                </>
              ),
            },
            {
              title: "Answer",
              clip: answerOf,
              cell: answerOf,
            },
            editable && {
              title: "Retry",
              hideTitle: true,
              cell: (d) => (
                <form method="post" action={`/dashboard/forms/${form.id}/deliveries/webhooks/${d.id}/retry`}>
                  <Csrf session={session} />
                  <button type="submit" class="secondary small" aria-label={`Send again the delivery of ${d.createdAt}`}>
                    Send again
                  </button>
                </form>
              ),
            },
          ]}
        />
      ),
  };
}
