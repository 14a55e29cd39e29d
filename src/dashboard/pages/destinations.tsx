/** @jsxImportSource hono/jsx */
import { counted } from "../../lib/plural.ts";
import type { Form } from "../../domain/types.ts";
import type { EndpointCircuit } from "../../services/outbox/shares.ts";
import type { Destination, DestinationTestResult } from "../../services/outbox/destinations.ts";
import { destinationKinds, kindOf, SECRET_KEYS } from "../../services/outbox/destination-types/index.ts";
import type { Session } from "../../services/people/users.ts";
import type { WebhookDelivery } from "../../services/outbox/deliveries.ts";
import { ConditionRows, rowsOf, typedRows } from "./condition-rows.tsx";
import { Check, Csrf, Field, Notice, Time } from "./layout.tsx";
import type { SettingsSection } from "./settings.tsx";
import { DataTable } from "./table.tsx";

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
  /** What was typed into the form that was refused, by input name (secrets never), so that nothing typed is lost. */
  typed?: Record<string, string>;
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
const secret = (key: string) => SECRET_KEYS.includes(key);

/** A type's name as the dashboard shows it. */
const titleOf = (type: string) => kindOf(type)?.title ?? type;

/** A JSON setting as the edit form shows it: empty when there is none. */
const jsonText = (value: unknown) => (value === null || value === undefined || (Array.isArray(value) && value.length === 0) ? "" : JSON.stringify(value));

/**
 * The form that changes one destination: its settings as they are, its secrets empty (left empty, the saved
 * one is kept; they are never shown), its fields, conditions and whether it is on. Its inputs are named
 * `<destination id>.<key>`, so that each destination's form has its own.
 */
function EditForm({
  session,
  base,
  destination: d,
  errors,
  typed,
}: {
  session: Session;
  base: string;
  destination: Destination;
  errors: DestinationsView["errors"];
  typed: Record<string, string>;
}) {
  const { title, inputs } = kindOf(d.type) ?? { title: d.type, inputs: [] };
  const mine = errors.editing === d.id;
  const name = (key: string) => `${d.id}.${key}`;
  // After a refusal, what was typed; else the destination as saved.
  const shown = (key: string, saved: string) => (mine ? (typed[name(key)] ?? "") : saved);
  return (
    <details open={mine}>
      <summary>
        Change the {title} destination ({describe(d)})
      </summary>
      <form method="post" action={`${base}/${d.id}`} class="grid">
        <Csrf session={session} />
        {inputs.map((input) =>
          input.kind === "status" ? (
            <StatusSelect name={name(input.key)} label={input.label} value={shown(input.key, String(d.config[input.key] ?? ""))} />
          ) : (
            <Field
              label={secret(input.key) ? `${input.label}: empty keeps the one saved` : input.label}
              name={name(input.key)}
              type={input.kind === "secret" ? "password" : "text"}
              multiline={input.kind === "multiline"}
              required={!input.optional && !secret(input.key)}
              value={secret(input.key) ? undefined : shown(input.key, String(d.config[input.key] ?? ""))}
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
          value={shown("fields", jsonText(d.fields))}
          error={mine ? errors.fields : undefined}
        />
        <ConditionRows prefix={d.id} rows={mine ? typedRows(typed, d.id) : rowsOf(d.when)} error={mine ? errors.when : undefined} />
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
  const typed = view.typed ?? {};
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
            { title: "Type", cellClass: "whole", cell: (d) => titleOf(d.type) },
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
      {editable ? destinations.map((d) => <EditForm session={session} base={base} destination={d} errors={errors} typed={typed} />) : null}
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
                return to ? titleOf(to.type) : (d.destinationId ?? "");
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
          {destinationKinds().map(({ type, title, inputs }) => (
            <details open={errors.destinationType === type}>
              <summary>{title}</summary>
              <form method="post" action={base} class="grid">
                <Csrf session={session} />
                <input type="hidden" name="type" value={type} />
                {inputs.map((input) =>
                  input.kind === "status" ? (
                    <StatusSelect name={`${type}.${input.key}`} label={input.label} value={typed[`${type}.${input.key}`] ?? "pending"} />
                  ) : (
                    <Field
                      label={input.label}
                      name={`${type}.${input.key}`}
                      type={input.kind === "secret" ? "password" : "text"}
                      multiline={input.kind === "multiline"}
                      required={!input.optional}
                      value={secret(input.key) ? undefined : typed[`${type}.${input.key}`]}
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
                  value={typed[`${type}.fields`]}
                  error={errors.destinationType === type ? errors.fields : undefined}
                />
                <ConditionRows
                  prefix={type}
                  rows={errors.destinationType === type ? typedRows(typed, type) : []}
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
