// The fields a form declares (docs/api.md, "Fields of a form") and how a post is held to them: values read as HTML forms send them
// (numbers as text are numbers, an optional input sent empty is absent, a checkbox is on/true/present), every
// field at fault reported at once, and the undeclared fields kept, dropped or refused as the form says.
import { ApiError, type ErrorItem } from "../../errors.ts";
import { isFileRef, UploadedFile } from "../../lib/files.ts";
import { en, type Messages } from "../../lib/i18n/en.ts";
import { isEmail, type Zod } from "../../lib/validate.ts";
import { FIELD_TYPES, type FieldRule, OTHER_FIELDS, type OtherFields } from "../../domain/types.ts";

const validPattern = (pattern: string) => {
  try {
    new RegExp(`^(?:${pattern})$`, "v");
    return true;
  } catch {
    return false;
  }
};

/** The longest field name, in characters (not UTF-16 units), whether posted or declared on a form. */
export const MAX_FIELD_NAME = 200;

/** The longest hint a declared field may show under its input on the form's page. */
export const MAX_HINT = 200;

/** The schema of `fields` on create and update (the OpenAPI document is generated from it too). */
export const fieldRules = (z: Zod) =>
  z
    .array(
      z
        .strictObject({
          name: z
            .string({ error: "fields[].name must be the field's name, as the form's inputs send it." })
            .min(1, "fields[].name must not be empty.")
            // JSON Schema's maxLength counts characters too (the document keeps it); zod's max counts UTF-16 units.
            .refine((name) => Array.from(name).length <= MAX_FIELD_NAME, `fields[].name must be at most ${MAX_FIELD_NAME} characters.`)
            .meta({ maxLength: MAX_FIELD_NAME })
            .refine((name) => !name.startsWith("_") && !name.endsWith("-response"), "fields[].name cannot be a special field (_next, _gotcha, …)."),
          label: z.string().max(200, "fields[].label must be at most 200 characters.").optional(),
          hint: z.string().max(MAX_HINT, `fields[].hint must be at most ${MAX_HINT} characters.`).optional(),
          type: z.enum(FIELD_TYPES, { error: `fields[].type must be one of ${FIELD_TYPES.join(", ")}.` }),
          required: z.boolean({ error: "fields[].required must be true or false." }).optional(),
          minLength: z.int().min(0).max(100_000).optional(),
          maxLength: z.int().min(1).max(100_000).optional(),
          min: z.number().optional(),
          max: z.number().optional(),
          pattern: z.string().max(500).refine(validPattern, "fields[].pattern must be a regular expression as HTML's pattern attribute takes it.").optional(),
          options: z.array(z.string().max(200)).min(1).max(200).optional(),
        })
        .refine((rule) => rule.type !== "select" || (rule.options?.length ?? 0) > 0, "A select field needs its options."),
    )
    .max(200, "A form may declare at most 200 fields.")
    .refine((rules) => new Set(rules.map((rule) => rule.name)).size === rules.length, "fields must not declare one name twice.");

/** The schema of `otherFields`. */
export const otherFields = (z: Zod) => z.enum(OTHER_FIELDS, { error: `otherFields must be one of ${OTHER_FIELDS.join(", ")}.` });

const isEmpty = (value: unknown) =>
  value === undefined || value === null || value === "" || (Array.isArray(value) && value.every((v) => v === "" || v === null));
const CHECKED = new Set(["on", "true", "yes", "1"]);
const UNCHECKED = new Set(["off", "false", "no", "0"]);
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` is a day of the calendar as YYYY-MM-DD: Date.parse alone takes 2026-02-30 as 2 March. */
function isCalendarDate(text: string): boolean {
  const parts = DATE.exec(text);
  if (!parts) return false;
  const [year, month, day] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A value of one field held to its rule: the value to store, or the reason it is refused (code and words). */
function checkValue(rule: FieldRule, value: unknown, t: Messages): { value: unknown } | { code: string; message: string } {
  const label = rule.label || rule.name;
  if (rule.type === "checkbox") {
    const checked = value === true || (typeof value === "string" && (CHECKED.has(value.toLowerCase()) || !UNCHECKED.has(value.toLowerCase())));
    if (rule.required && !checked) return { code: "required", message: t.checkRequired({ label }) };
    return { value: checked };
  }
  if (rule.type === "file") return value instanceof UploadedFile || isFileRef(value) ? { value } : { code: "invalid_value", message: t.chooseFile({ label }) };
  if (rule.type === "select") {
    const values = Array.isArray(value) ? value : [value];
    const bad = values.find((v) => typeof v !== "string" || !rule.options!.includes(v));
    return bad === undefined ? { value } : { code: "invalid_option", message: t.chooseOption({ label }) };
  }
  if (rule.type === "number") {
    const number = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value.trim()) : Number.NaN;
    if (!Number.isFinite(number)) return { code: "invalid_number", message: t.enterNumber({ label }) };
    if (rule.min !== undefined && number < rule.min) return { code: "too_small", message: t.tooSmall({ label, min: rule.min }) };
    if (rule.max !== undefined && number > rule.max) return { code: "too_large", message: t.tooLarge({ label, max: rule.max }) };
    return { value: number };
  }
  if (typeof value !== "string") return { code: "invalid_value", message: t.oneValue({ label }) };
  const text = rule.type === "email" || rule.type === "url" ? value.trim() : value;
  const length = Array.from(text).length;
  if (rule.type === "email" && !(text.length <= 254 && isEmail(text))) return { code: "invalid_email", message: t.invalidEmail({ label }) };
  if (rule.type === "url" && !(URL.canParse(text) && /^https?:$/.test(new URL(text).protocol))) {
    return { code: "invalid_url", message: t.invalidUrl({ label }) };
  }
  if (rule.type === "date" && !isCalendarDate(text)) return { code: "invalid_date", message: t.invalidDate({ label }) };
  if (rule.minLength !== undefined && length < rule.minLength) return { code: "too_short", message: t.tooShort({ label, min: rule.minLength }) };
  if (rule.maxLength !== undefined && length > rule.maxLength) return { code: "too_long", message: t.tooLong({ label, max: rule.maxLength }) };
  if (rule.pattern !== undefined && !new RegExp(`^(?:${rule.pattern})$`, "v").test(text)) {
    return { code: "pattern_mismatch", message: t.patternMismatch({ label }) };
  }
  return { value: text };
}

/**
 * The post's data held to the form's declared fields: the data to store (values read as HTML forms send them,
 * undeclared fields kept or dropped), or `400 validation_failed` listing every field at fault. Without declared
 * fields the data is stored as sent. Messages are in the visitor's language (`t`).
 */
export function applyFieldRules(rules: FieldRule[] | null, other: OtherFields, data: Record<string, unknown>, t: Messages = en): Record<string, unknown> {
  if (!rules || rules.length === 0) return data;
  const faults: ErrorItem[] = [];
  // The declared fields first, in their order, so that a notification and an export read as the form is laid out.
  const out: Record<string, unknown> = Object.create(null);
  for (const rule of rules) {
    const value = data[rule.name];
    if (rule.type !== "checkbox" && isEmpty(value)) {
      if (rule.required) faults.push({ field: rule.name, code: "required", message: t.required({ label: rule.label || rule.name }) });
      continue;
    }
    const checked = checkValue(rule, rule.type === "checkbox" && isEmpty(value) ? "off" : value, t);
    if ("code" in checked) faults.push({ field: rule.name, ...checked });
    else out[rule.name] = checked.value;
  }
  const declared = new Set(rules.map((rule) => rule.name));
  for (const [name, value] of Object.entries(data)) {
    if (declared.has(name)) continue;
    if (other === "keep") out[name] = value;
    else if (other === "refuse") faults.push({ field: name, code: "unknown_field", message: t.unknownField({ name }) });
  }
  if (faults.length > 0) {
    const message = faults.length === 1 ? `${t.errorSummary({ count: 1 })} ${faults[0]!.message}` : t.fieldsNeedFixing({ count: faults.length });
    throw new ApiError("validation_failed", message, { items: faults, ...(faults.length === 1 ? { field: faults[0]!.field } : {}) });
  }
  return out;
}
