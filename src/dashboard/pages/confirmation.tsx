/** @jsxImportSource hono/jsx */
import { renderConfirmation, type RenderedConfirmation } from "../../lib/confirmation-text.ts";
import { CONFIRMATION_DEFAULTS as DEFAULTS, CONFIRMATION_RANGES } from "../../domain/limits.ts";
import type { Confirmation } from "../../domain/types.ts";
import type { Form } from "../../domain/types.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Notice } from "./layout.tsx";
import { Facts, type SettingsSection } from "./settings.tsx";

/** The confirmation section's inputs as the page holds them: the saved setting, or what was just posted. */
export interface ConfirmationInput {
  enabled: boolean;
  field: string;
  subject: string;
  text: string;
  fromName: string;
  replyTo: string;
  doubleOptIn: boolean;
  optInDays: string;
  perAddressHours: string;
  perFormDaily: string;
}

// {{name|there}}: a form without a name field still reads "Hello there,".
const DEFAULT_TEXT = "Hello {{name|there}},\n\nthank you for writing to {{form}}. We received your message and will answer soon.\n";

/** The inputs of a form's saved setting, or a starting point when it has none. */
export function confirmationInput(confirmation: Confirmation | null): ConfirmationInput {
  const c = confirmation;
  return {
    enabled: c?.enabled ?? false,
    field: c?.field ?? DEFAULTS.field,
    subject: c?.subject ?? "Thank you for writing to {{form}}",
    text: c?.text ?? DEFAULT_TEXT,
    fromName: c?.fromName ?? "",
    replyTo: c?.replyTo ?? "",
    doubleOptIn: c?.doubleOptIn ?? false,
    optInDays: String(c?.optInDays ?? DEFAULTS.optInDays),
    perAddressHours: String(c?.perAddressHours ?? DEFAULTS.perAddressHours),
    perFormDaily: String(c?.perFormDaily ?? DEFAULTS.perFormDaily),
  };
}

/** The API body the inputs stand for: numbers as numbers (a bad one goes as given, to be refused by the service). */
export function confirmationBody(input: ConfirmationInput): Record<string, unknown> {
  const number = (text: string) => (/^\d+$/.test(text.trim()) ? Number(text.trim()) : text);
  return {
    enabled: input.enabled,
    field: input.field,
    subject: input.subject,
    text: input.text.replace(/\r\n/g, "\n"),
    fromName: input.fromName.trim() || null,
    replyTo: input.replyTo.trim() || null,
    doubleOptIn: input.doubleOptIn,
    optInDays: number(input.optInDays),
    perAddressHours: number(input.perAddressHours),
    perFormDaily: number(input.perFormDaily),
  };
}

/**
 * A made-up submission of this form: each of its fields (declared or seen) filled with a sample, the address
 * field with an address. Only the form's own fields: a placeholder naming another reads as the mail will.
 */
function sampleData(form: Form, fields: string[], addressField: string): Record<string, unknown> {
  const names = new Set([...form.fields.map((field) => field.name), ...fields, addressField]);
  return Object.fromEntries(
    [...names].map((name) => [
      name,
      name === addressField ? "ada@example.com" : name === "name" ? "Ada Lovelace" : name === "message" ? `A question for ${form.name}.` : `(${name})`,
    ]),
  );
}

/** The email as a person who sent the sample submission would receive it. */
export function previewConfirmation(form: Form, fields: string[], input: ConfirmationInput): RenderedConfirmation {
  return renderConfirmation(
    { subject: input.subject || "(no subject)", text: input.text },
    {
      formName: form.name,
      date: new Date().toISOString(),
      data: sampleData(form, fields, input.field || DEFAULTS.field),
      link: input.doubleOptIn ? `${form.submitUrl.replace(/\/f\/[^/]+$/, "")}/confirm/…` : null,
    },
  );
}

/** The confirmation email section of a form's settings: the setting, and a preview of the email. */
export function confirmationSection(props: {
  session: Session;
  form: Form;
  input: ConfirmationInput;
  preview: RenderedConfirmation;
  errors?: Record<string, string | undefined>;
  notice?: string;
}): SettingsSection {
  const { session, form, input, preview, errors = {} } = props;
  const check = (name: "enabled" | "doubleOptIn", label: string) => (
    <div class="field check">
      <input type="checkbox" id={`f-${name}`} name={name} value="true" checked={input[name]} />
      <label for={`f-${name}`}>{label}</label>
    </div>
  );
  return {
    id: "confirmation",
    title: "Confirmation email",
    body: (
      <div>
        <form method="post" action={`/dashboard/forms/${form.id}/settings/confirmation`} class="grid">
          <Csrf session={session} />
          <Notice text={props.notice} />
          <Notice text={errors.confirmation} kind="error" />
          <p class="hint">
            An email to the person who submitted, at the address in one field. Values are inserted as plain text, cut to 500 characters, links and addresses in
            them made inert. Never sent for spam or a test form; at most one per address per period, and a daily cap per form.
          </p>
          {check("enabled", "Send a confirmation email")}
          <Field label="Address field" name="field" value={input.field} hint="The field that holds the recipient's address." error={errors.field} />
          <Field
            label="Subject"
            name="subject"
            value={input.subject}
            hint="Placeholders: {{field}}, {{form}}, {{date}}; {{field|text}} gives text when a submission lacks the field."
            error={errors.subject}
          />
          <Field label="Text" name="text" value={input.text} multiline hint="Plain text, with the same placeholders." error={errors.text} />
          <Field label="From" name="fromName" value={input.fromName} hint="The sender name shown. Empty: the server's own." error={errors.fromName} />
          <Field label="Reply-To" name="replyTo" type="email" value={input.replyTo} hint="Where answers go. Empty: none." error={errors.replyTo} />
          {check("doubleOptIn", "Double opt-in: keep each submission unconfirmed until its link is opened")}
          <Field
            label="Link valid for (days)"
            name="optInDays"
            value={input.optInDays}
            hint={`${CONFIRMATION_RANGES.optInDays.min} to ${CONFIRMATION_RANGES.optInDays.max}; unconfirmed submissions are then deleted.`}
            error={errors.optInDays}
          />
          <Field label="Per address, at most one every (hours)" name="perAddressHours" value={input.perAddressHours} error={errors.perAddressHours} />
          <Field label="Per form, at most (a day)" name="perFormDaily" value={input.perFormDaily} error={errors.perFormDaily} />
          <div class="actions">
            <button type="submit">Save confirmation email</button>
            <button type="submit" name="preview" value="1" class="secondary">
              Preview
            </button>
          </div>
        </form>
        <h3 id="confirmation-preview-label">Preview, from a sample submission</h3>
        <div class="preview" aria-labelledby="confirmation-preview-label">
          <p>
            <strong>Subject:</strong> <span id="confirmation-preview-subject">{preview.subject}</span>
          </p>
          <pre tabindex={0}>
            <code id="confirmation-preview-text">{preview.text}</code>
          </pre>
        </div>
      </div>
    ),
    view: (
      <Facts
        facts={[
          ["Confirmation email", input.enabled ? `sent to the address in ${input.field}` : "not sent"],
          ...(input.enabled
            ? ([
                ["Subject", input.subject],
                ["From", input.fromName || "the server's own name"],
                ["Reply-To", input.replyTo || "none"],
                ["Double opt-in", input.doubleOptIn ? `on, links valid ${input.optInDays || DEFAULTS.optInDays} days` : "off"],
                [
                  "Limits",
                  `one per address every ${input.perAddressHours || DEFAULTS.perAddressHours} hours, ${input.perFormDaily || DEFAULTS.perFormDaily} a day per form`,
                ],
              ] as [string, string][])
            : []),
        ]}
      />
    ),
  };
}
