/** @jsxImportSource hono/jsx */
import { counted } from "../../lib/plural.ts";
import type { Form } from "../../domain/types.ts";
import type { EndpointCircuit } from "../../services/outbox/shares.ts";
import type { Destination, DestinationTestResult } from "../../services/outbox/destinations.ts";
import { type DestinationType, SECRET_KEYS } from "../../services/outbox/destination-types.ts";
import type { Session } from "../../services/people/users.ts";
import type { WebhookDelivery } from "../../services/outbox/deliveries.ts";
import { Check, Csrf, Field, Notice, Time } from "./layout.tsx";
import type { SettingsSection } from "./settings.tsx";
import { DataTable } from "./table.tsx";

/** One input of a type's form: its config key, its label, and how it is typed in. */
interface ConfigInput {
  key: string;
  label: string;
  kind?: "secret" | "multiline" | "status";
  optional?: boolean;
  placeholder?: string;
}

/** What each type asks for (docs/api.md, "Destinations", says where each value is found). */
export const TYPE_INPUTS: Record<DestinationType, { title: string; inputs: ConfigInput[] }> = {
  google_sheets: {
    title: "Google Sheets",
    inputs: [
      { key: "serviceAccountKey", label: "Service account key (the key file's JSON)", kind: "multiline" },
      { key: "spreadsheetId", label: "Spreadsheet id (from its address)" },
      { key: "sheet", label: "Sheet (tab) name", placeholder: "Sheet1" },
    ],
  },
  airtable: {
    title: "Airtable",
    inputs: [
      { key: "token", label: "Personal access token", kind: "secret" },
      { key: "baseId", label: "Base id", placeholder: "app…" },
      { key: "table", label: "Table name or id" },
    ],
  },
  notion: {
    title: "Notion",
    inputs: [
      { key: "token", label: "Integration token", kind: "secret" },
      { key: "databaseId", label: "Database id" },
    ],
  },
  mailchimp: {
    title: "Mailchimp",
    inputs: [
      { key: "apiKey", label: "API key (ends with -usN)", kind: "secret" },
      { key: "audienceId", label: "Audience id" },
      { key: "status", label: "New members are", kind: "status" },
    ],
  },
  telegram: {
    title: "Telegram",
    inputs: [
      { key: "botToken", label: "Bot token", kind: "secret" },
      { key: "chatId", label: "Chat id", placeholder: "-100…" },
    ],
  },
  teams: { title: "Microsoft Teams", inputs: [{ key: "url", label: "Workflows webhook address", kind: "secret" }] },
  ntfy: {
    title: "ntfy",
    inputs: [
      { key: "topic", label: "Topic" },
      { key: "token", label: "Access token (optional)", kind: "secret", optional: true },
      { key: "baseUrl", label: "Server (optional, default https://ntfy.sh)", optional: true },
    ],
  },
};

const STATE: Record<string, string> = { pending: "waiting to be sent", succeeded: "delivered", failed: "failed" };

/** What the section shows: the destinations, their circuits and recent deliveries, a test's outcome, errors. */
export interface DestinationsView {
  session: Session;
  form: Form;
  destinations: Destination[];
  circuits: EndpointCircuit[];
  deliveries: WebhookDelivery[];
  tested: (DestinationTestResult & { destinationId: string }) | null;
  errors: Record<string, string | undefined>;
}

/** What the section shows beside the form: read for the settings page (destinations-view.ts). */
export type DestinationsShown = Omit<DestinationsView, "session" | "form" | "errors">;

/** What a delivery's last attempt got: the error in the owner's words, or the status. */
const answerOf = (d: WebhookDelivery) => d.error ?? (d.responseStatus === null ? "" : String(d.responseStatus));

const describe = (d: Destination) =>
  Object.entries(d.config)
    .map(([key, value]) => `${key}: ${String(value)}`)
    .join(" · ");

/** Mailchimp's status of a new member: pending (Mailchimp asks them to confirm) or subscribed at once. */
function StatusSelect({ name, label, value }: { name: string; label: string; value: unknown }) {
  return (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      <select id={`f-${name}`} name={name}>
        <option value="pending" selected={value !== "subscribed"}>
          pending: Mailchimp asks them to confirm
        </option>
        <option value="subscribed" selected={value === "subscribed"}>
          subscribed at once
        </option>
      </select>
    </div>
  );
}

/** True for a config key whose value is never shown again once saved. */
const secret = (key: string) => (SECRET_KEYS as readonly string[]).includes(key);

/** A JSON setting as the edit form shows it: empty when there is none. */
const jsonText = (value: unknown) => (value === null || value === undefined || (Array.isArray(value) && value.length === 0) ? "" : JSON.stringify(value));

/**
 * The form that changes one destination: its settings as they are, its secrets empty (left empty, the saved
 * one is kept; they are never shown), its fields, conditions and whether it is on. Its inputs are named
 * `<destination id>.<key>`, so that each destination's form has its own.
 */
function EditForm({ session, base, destination: d, errors }: { session: Session; base: string; destination: Destination; errors: DestinationsView["errors"] }) {
  const { title, inputs } = TYPE_INPUTS[d.type];
  const mine = errors.editing === d.id;
  const name = (key: string) => `${d.id}.${key}`;
  return (
    <details open={mine}>
      <summary>
        Change the {title} destination ({describe(d)})
      </summary>
      <form method="post" action={`${base}/${d.id}`} class="grid">
        <Csrf session={session} />
        {inputs.map((input) =>
          input.kind === "status" ? (
            <StatusSelect name={name(input.key)} label={input.label} value={d.config[input.key]} />
          ) : (
            <Field
              label={secret(input.key) ? `${input.label}: empty keeps the one saved` : input.label}
              name={name(input.key)}
              type={input.kind === "secret" ? "password" : "text"}
              multiline={input.kind === "multiline"}
              required={!input.optional && !secret(input.key)}
              value={secret(input.key) ? undefined : String(d.config[input.key] ?? "")}
              placeholder={input.placeholder}
              autocomplete="off"
              error={mine ? errors[`config.${input.key}`] : undefined}
            />
          ),
        )}
        <Field
          label='Fields (JSON: {"email": "Email"}; empty: every field)'
          name={name("fields")}
          multiline
          value={jsonText(d.fields)}
          error={mine ? errors.fields : undefined}
        />
        <Field
          label="Conditions (JSON; empty: every submission)"
          name={name("when")}
          multiline
          value={jsonText(d.when)}
          error={mine ? errors.when : undefined}
        />
        <Check name={name("enabled")} label="On: kept submissions are sent to it" checked={d.enabled} />
        <Notice text={mine ? errors.destination : undefined} kind="error" />
        <div class="actions">
          <button type="submit">Save the {title} destination</button>
        </div>
      </form>
    </details>
  );
}

/** Destinations: each one, its circuit, a test, removal, the add forms (one per type) and the recent deliveries with re-send. */
export function destinationsSection(view: DestinationsView): SettingsSection {
  const { session, form, destinations, circuits, deliveries, tested, errors } = view;
  const base = `/dashboard/forms/${form.id}/destinations`;
  const circuitOf = (id: string) => circuits.find((c) => c.id === id);
  const content = (editable: boolean) => (
    <div>
      <p class="hint">
        Each kept submission (not spam, confirmed when the form asks for it) is sent to every destination here whose conditions it meets, with the webhooks'
        retries. Tokens and keys are never shown again once saved.
      </p>
      {tested ? (
        <Notice
          kind={tested.ok ? "ok" : "error"}
          text={tested.ok ? `Test sent: the service answered ${tested.responseStatus} in ${tested.durationMs} ms.` : `The test was refused: ${tested.error}`}
        />
      ) : null}
      {destinations.length === 0 ? (
        <p class="empty">No destinations yet.</p>
      ) : (
        <DataTable
          label="Destinations"
          rows={destinations}
          columns={[
            { title: "Type", cellClass: "whole", cell: (d) => TYPE_INPUTS[d.type]?.title ?? d.type },
            { title: "Settings", clip: (d) => describe(d), cell: (d) => describe(d) },
            {
              title: "State",
              cell: (d) => {
                const circuit = circuitOf(d.id);
                if (!d.enabled) return "off";
                return circuit?.openUntil ? (
                  <span class="state failed">
                    paused until <Time iso={new Date(circuit.openUntil).toISOString()} />
                  </span>
                ) : (
                  <span class="state succeeded">{circuit && circuit.failureStreak > 0 ? `on · ${circuit.failureStreak} failed in a row` : "on"}</span>
                );
              },
            },
            editable && {
              title: "Actions",
              hideTitle: true,
              cellClass: "row-actions",
              cell: (d) => (
                <>
                  <form method="post" action={`${base}/${d.id}/test`}>
                    <Csrf session={session} />
                    <button type="submit" class="secondary small" aria-label={`Send a test to the ${d.type} destination`}>
                      Send a test
                    </button>
                  </form>
                  <form method="post" action={`${base}/${d.id}/delete`}>
                    <Csrf session={session} />
                    <button type="submit" class="danger small" aria-label={`Delete the ${d.type} destination`} data-confirm="Delete this destination?">
                      Delete
                    </button>
                  </form>
                </>
              ),
            },
          ]}
        />
      )}
      {editable ? destinations.map((d) => <EditForm session={session} base={base} destination={d} errors={errors} />) : null}
      <h3>Recent deliveries</h3>
      {deliveries.length === 0 ? (
        <p class="empty">No deliveries to destinations yet.</p>
      ) : (
        <DataTable
          label="Deliveries to destinations"
          rows={deliveries}
          columns={[
            { title: "Created", cell: (d) => <Time iso={d.createdAt} /> },
            {
              title: "To",
              cellClass: "whole",
              cell: (d) => {
                const to = destinations.find((x) => x.id === d.destinationId);
                return to ? (TYPE_INPUTS[to.type]?.title ?? to.type) : (d.destinationId ?? "");
              },
            },
            {
              title: "State",
              cell: (d) => <span class={`state ${d.status}`}>{`${STATE[d.status] ?? d.status} · ${counted(d.attempts, "attempt")}`}</span>,
            },
            { title: "Answer", clip: (d) => answerOf(d), cell: (d) => answerOf(d) },
            editable && {
              title: "Retry",
              hideTitle: true,
              cell: (d) => (
                <form method="post" action={`${base}/deliveries/${d.id}/retry`}>
                  <Csrf session={session} />
                  <button type="submit" class="secondary small" aria-label={`Send again the delivery of ${d.createdAt}`}>
                    Send again
                  </button>
                </form>
              ),
            },
          ]}
        />
      )}
      {editable ? (
        <>
          <h3>Add a destination</h3>
          <Notice text={errors.destination} kind="error" />
          {(Object.entries(TYPE_INPUTS) as [DestinationType, (typeof TYPE_INPUTS)[DestinationType]][]).map(([type, { title, inputs }]) => (
            <details open={errors.destinationType === type}>
              <summary>{title}</summary>
              <form method="post" action={base} class="grid">
                <Csrf session={session} />
                <input type="hidden" name="type" value={type} />
                {inputs.map((input) =>
                  input.kind === "status" ? (
                    <StatusSelect name={`${type}.${input.key}`} label={input.label} value="pending" />
                  ) : (
                    <Field
                      label={input.label}
                      name={`${type}.${input.key}`}
                      type={input.kind === "secret" ? "password" : "text"}
                      multiline={input.kind === "multiline"}
                      required={!input.optional}
                      placeholder={input.placeholder}
                      autocomplete="off"
                      error={errors.destinationType === type ? errors[`config.${input.key}`] : undefined}
                    />
                  ),
                )}
                <Field
                  label='Fields (optional JSON: {"email": "Email"})'
                  name={`${type}.fields`}
                  multiline
                  error={errors.destinationType === type ? errors.fields : undefined}
                />
                <Field
                  label='Conditions (optional JSON: [{"field": "topic", "op": "equals", "value": "sales"}])'
                  name={`${type}.when`}
                  multiline
                  error={errors.destinationType === type ? errors.when : undefined}
                />
                <div class="actions">
                  <button type="submit">Add {title}</button>
                </div>
              </form>
            </details>
          ))}
        </>
      ) : null}
    </div>
  );
  return { id: "destinations", title: "Destinations", body: content(true), view: content(false) };
}
