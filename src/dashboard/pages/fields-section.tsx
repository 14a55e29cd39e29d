/** @jsxImportSource hono/jsx */
import { FIELD_TYPES, type FieldRule, type Form, OTHER_FIELDS } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { MAX_HINT } from "../../services/submissions/fields.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Notice, ScrollTable } from "./layout.tsx";
import type { SettingsSection } from "./settings.tsx";

type Errors = Record<string, string | undefined>;

/** One row of the fields editor as the page shows it: every value as text, as a browser posts it. */
export interface FieldRow {
  name: string;
  label: string;
  /** The line the form's page shows under the input. */
  hint: string;
  type: string;
  required: boolean;
  minLength: string;
  maxLength: string;
  min: string;
  max: string;
  pattern: string;
  /** One option a line. */
  options: string;
  /** Ticked "remove": left out when saved. */
  remove: boolean;
  /** A row of a saved field (it offers "remove"), not the blank one for a new field. */
  saved: boolean;
}

/** The fields editor's state: its rows, and what happens to the fields a post sends that are not declared. */
export interface FieldsInput {
  rows: FieldRow[];
  otherFields: string;
}

const KEYS = ["name", "label", "hint", "type", "minLength", "maxLength", "min", "max", "pattern", "options"] as const;
/** At most this many rows are read from a post: the service allows 200 fields, a few more show its own error. */
const MAX_ROWS = 210;

const blank = (): FieldRow => ({
  name: "",
  label: "",
  hint: "",
  type: "text",
  required: false,
  minLength: "",
  maxLength: "",
  min: "",
  max: "",
  pattern: "",
  options: "",
  remove: false,
  saved: false,
});
const text = (value: number | string | undefined) => (value === undefined ? "" : String(value));

/** The editor for a form as saved: a row per declared field, then a blank one to add a field. */
export function fieldsInput(form: Form): FieldsInput {
  const rows = form.fields.map(
    (rule): FieldRow => ({
      ...blank(),
      name: rule.name,
      label: rule.label ?? "",
      hint: rule.hint ?? "",
      type: rule.type,
      required: rule.required ?? false,
      minLength: text(rule.minLength),
      maxLength: text(rule.maxLength),
      min: text(rule.min),
      max: text(rule.max),
      pattern: rule.pattern ?? "",
      options: (rule.options ?? []).join("\n"),
      saved: true,
    }),
  );
  return { rows: [...rows, blank()], otherFields: form.otherFields };
}

/** The editor's state from its post (`fields.N.name` …; every row posts its type); `add` appends a blank row. */
export function fieldsFromPost(body: URLSearchParams): FieldsInput {
  let count = 0;
  for (const key of body.keys()) {
    const row = /^fields\.(\d{1,3})\.type$/.exec(key);
    if (row) count = Math.max(count, Math.min(MAX_ROWS, Number(row[1]) + 1));
  }
  const rows = Array.from({ length: count }, (_, i): FieldRow => {
    const row = blank();
    for (const key of KEYS) row[key] = body.get(`fields.${i}.${key}`) ?? "";
    row.required = body.get(`fields.${i}.required`) === "true";
    row.remove = body.get(`fields.${i}.remove`) === "true";
    row.saved = body.get(`fields.${i}.saved`) === "true";
    return row;
  });
  if (body.get("intent") === "add" || rows.length === 0) rows.push(blank());
  return { rows, otherFields: body.get("otherFields") ?? "keep" };
}

// A number as typed; text that is not one is passed on as it is, for the service to refuse with its own words.
const numberOf = (value: string) => {
  const trimmed = value.trim();
  if (trimmed === "") return undefined;
  return Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
};
const isBlank = (row: FieldRow) => KEYS.every((key) => key === "type" || row[key].trim() === "") && !row.required;

/**
 * The PATCH body the forms service takes (the same rules as the API's), and for each field of it the row of
 * the page it came from, so that an error the service names (`fields.2.pattern`) is shown beside its input.
 */
export function fieldsPatch(input: FieldsInput): { patch: { fields: unknown[]; otherFields: string }; rowOf: number[] } {
  const rowOf: number[] = [];
  const fields: unknown[] = [];
  input.rows.forEach((row, index) => {
    if (row.remove || isBlank(row)) return;
    const options = row.options
      .split(/\r?\n/)
      .map((option) => option.trim())
      .filter(Boolean);
    const rule: Record<string, unknown> = { name: row.name.trim(), type: row.type };
    if (row.label.trim()) rule.label = row.label.trim();
    if (row.hint.trim()) rule.hint = row.hint.trim();
    if (row.required) rule.required = true;
    for (const key of ["minLength", "maxLength", "min", "max"] as const) {
      const value = numberOf(row[key]);
      if (value !== undefined) rule[key] = value;
    }
    if (row.pattern !== "") rule.pattern = row.pattern;
    if (options.length > 0) rule.options = options;
    fields.push(rule);
    rowOf.push(index);
  });
  return { patch: { fields, otherFields: input.otherFields }, rowOf };
}

/** The service's refusal as errors by input of the page (`fields.3.name`, a row's `fields.3`, or the section's `fields`). */
export function fieldsErrors(error: unknown, rowOf: number[]): Record<string, string> {
  if (!(error instanceof ApiError) || error.status >= 500 || error.code === "form_not_found") throw error;
  const [top, index, key] = (error.field ?? "").split(".");
  if (top === "otherFields") return { otherFields: error.message };
  if (top !== "fields" || index === undefined || rowOf[Number(index)] === undefined) return { fields: error.message };
  const row = rowOf[Number(index)]!;
  return { [key ? `fields.${row}.${key}` : `fields.${row}`]: error.message };
}

/** A select with its label, its hint, and the error beside it; `labels` gives an option's text when not its value. */
function Choice({
  name,
  label,
  value,
  choices,
  labels,
  hint,
  error,
}: {
  name: string;
  label: string;
  value: string;
  choices: readonly string[];
  labels?: Record<string, string>;
  hint?: string;
  error?: string;
}) {
  const id = `f-${name}`;
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={id}>{label}</label>
      <select id={id} name={name} aria-invalid={error ? "true" : undefined} aria-describedby={described}>
        {choices.map((choice) => (
          <option value={choice} selected={choice === value}>
            {labels?.[choice] ?? choice}
          </option>
        ))}
      </select>
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A checkbox that posts "true" when ticked. */
function Tick({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <div class="field check">
      <input type="checkbox" id={`f-${name}`} name={name} value="true" checked={checked} />
      <label for={`f-${name}`}>{label}</label>
    </div>
  );
}

/** One declared field's inputs, in a fieldset named after it. */
function RuleRow({ row, index, errors }: { row: FieldRow; index: number; errors: Errors }) {
  const at = (key: string) => `fields.${index}.${key}`;
  const input = (key: (typeof KEYS)[number], label: string, hint?: string) => (
    <Field label={label} name={at(key)} value={row[key]} hint={hint} error={errors[at(key)]} />
  );
  return (
    <fieldset class="field rule grid">
      <legend>{row.saved ? `Field ${index + 1}: ${row.name}` : "New field"}</legend>
      <Notice text={errors[`fields.${index}`]} kind="error" />
      {row.saved ? <input type="hidden" name={at("saved")} value="true" /> : null}
      {input("name", "Field name", "As the input's name attribute sends it.")}
      {input("label", "Label", "Used in error messages. Empty: the field name.")}
      {input("hint", "Hint", `Shown under the input on the form's page; at most ${MAX_HINT} characters.`)}
      <Choice name={at("type")} label="Type" value={row.type} choices={FIELD_TYPES} error={errors[at("type")]} />
      {input("minLength", "Min length")}
      {input("maxLength", "Max length")}
      {input("min", "Minimum", "For a number.")}
      {input("max", "Maximum", "For a number.")}
      {input("pattern", "Pattern", "A regular expression, as HTML's pattern attribute takes it.")}
      <Field label="Options" name={at("options")} value={row.options} multiline hint="For a select: one option a line." error={errors[at("options")]} />
      <Tick name={at("required")} label="Required" checked={row.required} />
      {row.saved ? <Tick name={at("remove")} label={`Remove this field when saving`} checked={row.remove} /> : null}
    </fieldset>
  );
}

const OTHER_HELP: Record<string, string> = {
  keep: "keep: stored as sent",
  drop: "drop: left out, the rest is stored",
  refuse: "refuse: the post is refused",
};

/**
 * Fields: the inputs a form declares, each held to its rules when a post comes in (docs/api.md, "Fields of a form"), and what
 * happens to the others. Without JavaScript: a blank row adds a field, "Add another field" one more.
 */
export function fieldsSection({ session, form, errors, input }: { session: Session; form: Form; errors: Errors; input?: FieldsInput }): SettingsSection {
  const state = input ?? fieldsInput(form);
  return {
    id: "fields",
    title: "Fields",
    body: (
      <form method="post" action={`/dashboard/forms/${form.id}/settings/fields#fields`} class="grid">
        <Csrf session={session} />
        <p class="hint">
          With fields declared, a post that breaks their rules stores nothing and is answered with every field at fault. Without any, every post is stored as
          sent. Leave the new field's name empty to add none.
        </p>
        <Notice text={errors.fields} kind="error" />
        {state.rows.map((row, index) => (
          <RuleRow row={row} index={index} errors={errors} />
        ))}
        <Choice
          name="otherFields"
          label="Fields not declared here"
          value={state.otherFields}
          choices={OTHER_FIELDS}
          labels={OTHER_HELP}
          hint="Applies once at least one field is declared above; a form with no fields takes any field."
          error={errors.otherFields}
        />
        <div class="actions">
          <button type="submit">Save fields</button>
          <button type="submit" name="intent" value="add" class="secondary">
            Add another field
          </button>
        </div>
      </form>
    ),
    view: <FieldsTable form={form} />,
  };
}

/** The fields as a table, for a reader who may not change them. */
function FieldsTable({ form }: { form: Form }) {
  if (form.fields.length === 0) return <p>No fields declared: every post is stored as sent.</p>;
  const rules = (rule: FieldRule) =>
    [
      rule.required ? "required" : "",
      rule.minLength !== undefined ? `at least ${rule.minLength} characters` : "",
      rule.maxLength !== undefined ? `at most ${rule.maxLength} characters` : "",
      rule.min !== undefined ? `${rule.min} or more` : "",
      rule.max !== undefined ? `${rule.max} or less` : "",
      rule.pattern !== undefined ? `pattern ${rule.pattern}` : "",
      rule.options ? `options: ${rule.options.join(", ")}` : "",
    ]
      .filter(Boolean)
      .join("; ");
  return (
    <>
      <ScrollTable label="Declared fields">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Rules</th>
          </tr>
        </thead>
        <tbody>
          {form.fields.map((rule) => (
            <tr>
              <td>{rule.label ? `${rule.label} (${rule.name})` : rule.name}</td>
              <td>{rule.type}</td>
              <td>{rules(rule)}</td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      <p>Fields not declared: {OTHER_HELP[form.otherFields]}.</p>
    </>
  );
}
