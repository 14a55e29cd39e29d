// The confirmation email to the person who submitted, and its limits (docs/api.md, "Confirmation email and double opt-in"): never a relay. The visitor
// chooses the recipient but nothing else; spam, test forms and addresses over their limits get no email, and
// each refusal is an entry of the form's delivery log.
import { sql, type SQL } from "drizzle-orm";
import { memoized } from "../../db/prepared.ts";
import { notifications, submissions, type FormRow, type SubmissionRow } from "../../db/schema.ts";
import { CONFIRMATION_DEFAULTS, CONFIRMATION_RANGES } from "../../domain/limits.ts";
import type { Confirmation } from "../../domain/types.ts";
import { recipientOf, renderConfirmation } from "../../lib/confirmation-text.ts";
import { newId } from "../../lib/ids.ts";
import { headerSafe } from "../../lib/mail.ts";
import { iso } from "../../lib/time.ts";
import { isEmail, type Zod } from "../../lib/validate.ts";

/** Why a confirmation was not sent: the `reason` of its entry in the delivery log. */
export type RefusalReason = "spam" | "invalid_address" | "per_address_limit" | "per_form_daily_limit";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A limit of the setting: a whole number (of `unit`) within its range (CONFIRMATION_RANGES). */
function limit(z: Zod, name: keyof typeof CONFIRMATION_RANGES, unit: string) {
  const { min, max } = CONFIRMATION_RANGES[name];
  const within = `confirmation.${name} must be from ${min} to ${max}.`;
  return z
    .int({ error: `confirmation.${name} must be a whole number${unit} from ${min} to ${max}.` })
    .min(min, within)
    .max(max, within)
    .optional();
}

const noControls = (s: string) => !/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/.test(s.replace(/\r\n/g, "\n"));
const oneLine = (s: string) => !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(s);

/** `confirmation` on a form's create and update (the OpenAPI document is generated from it too). */
export const confirmationSchema = (z: Zod) =>
  z.strictObject(
    {
      enabled: z.boolean({ error: "confirmation.enabled must be true or false." }),
      field: z
        .string({ error: "confirmation.field must be the name of the field that holds the address." })
        .trim()
        .min(1, "confirmation.field must be the name of the field that holds the address.")
        .max(200, "confirmation.field must be at most 200 characters.")
        .optional(),
      subject: z
        .string({ error: "confirmation.subject must be text." })
        .trim()
        .min(1, "confirmation.subject must not be empty.")
        .max(200, "confirmation.subject must be at most 200 characters.")
        .refine(oneLine, "confirmation.subject must be one line."),
      text: z
        .string({ error: "confirmation.text must be text." })
        .min(1, "confirmation.text must not be empty.")
        .max(10_000, "confirmation.text must be at most 10000 characters.")
        .refine(noControls, "confirmation.text must not contain control characters other than line breaks and tabs."),
      fromName: z
        .string({ error: "confirmation.fromName must be text." })
        .trim()
        .min(1, "confirmation.fromName must not be empty.")
        .max(100, "confirmation.fromName must be at most 100 characters.")
        .refine(oneLine, "confirmation.fromName must be one line.")
        .nullish(),
      replyTo: z
        .string({ error: "confirmation.replyTo must be an email address." })
        .trim()
        .max(254, "confirmation.replyTo must be at most 254 characters.")
        .refine(isEmail, "confirmation.replyTo must be one email address such as you@example.com.")
        .nullish(),
      doubleOptIn: z.boolean({ error: "confirmation.doubleOptIn must be true or false." }).optional(),
      optInDays: limit(z, "optInDays", " of days"),
      perAddressHours: limit(z, "perAddressHours", " of hours"),
      perFormDaily: limit(z, "perFormDaily", ""),
    },
    { error: "confirmation must be an object {enabled, subject, text, ...} or null." },
  );

type ConfirmationInput = ReturnType<ReturnType<typeof confirmationSchema>["parse"]>;

/** The stored JSON of a confirmation setting (defaults filled in), or null to clear it. */
export function storedConfirmation(input: ConfirmationInput | null | undefined): string | null | undefined {
  if (input === undefined) return undefined;
  if (input === null) return null;
  const full: Confirmation = { ...CONFIRMATION_DEFAULTS, ...input, fromName: input.fromName ?? null, replyTo: input.replyTo ?? null } as Confirmation;
  return JSON.stringify(full);
}

// Parsed once per distinct text, not per post; frozen because every caller shares the one object.
const parsed = memoized((text: string) => Object.freeze({ ...CONFIRMATION_DEFAULTS, ...JSON.parse(text) }) as Confirmation);

/** A form's confirmation setting, or null when it has none. */
export function confirmationOf(row: Pick<FormRow, "confirmation">): Confirmation | null {
  return row.confirmation ? parsed(row.confirmation) : null;
}

/** Whether a submission to this form waits for its double opt-in link before the owner hears of it. */
export function awaitsOptIn(form: Pick<FormRow, "confirmation">, isSpam: boolean): boolean {
  const setting = confirmationOf(form);
  return !isSpam && setting !== null && setting.enabled && setting.doubleOptIn;
}

/** The double opt-in links as the write of a submission uses them (the opt-in service makes them). */
export interface OptInLinks {
  /** Loads the signing key, once: `link` needs it and cannot wait inside a write. */
  ready(): Promise<void>;
  /** The public address that confirms a submission until `expiresAt` (ms). */
  link(submissionId: string, expiresAt: number, language?: string): string;
}

/** What the write of a confirmation needs of its form. */
export type ConfirmingForm = Pick<FormRow, "id" | "name" | "mode" | "confirmation">;

const COUNTED = sql`kind = 'confirmation' AND status IN ('pending', 'sent', 'failed')`;

/**
 * The statement that writes a submission's confirmation, for a value maker `p` (a placeholder for the write's
 * statements, made once; a bound value for a single write). The limits are counted inside it, so concurrent
 * posts cannot all pass them: the entry is `pending` (to be sent), `recorded` (a test form's), or `refused` with
 * its reason. It writes only when the submission `submissionId` was written. Values: see confirmationValues.
 */
export function confirmationInsert(p: (name: keyof ConfirmationValues) => unknown): SQL {
  // Literal conditions on kind, so that SQLite can use the partial index notifications_confirmations.
  const verdict = sql`CASE WHEN ${p("fixed")} IS NOT NULL THEN ${p("fixed")} WHEN ${p("live")} = 0 THEN NULL
    WHEN EXISTS (SELECT 1 FROM ${notifications} WHERE ${COUNTED} AND form_id = ${p("formId")} AND "to" = ${p("to")}
      AND created_at > ${p("addressSince")}) THEN 'per_address_limit'
    WHEN (SELECT count(*) FROM ${notifications} WHERE ${COUNTED} AND form_id = ${p("formId")} AND created_at > ${p("daySince")})
      >= ${p("perFormDaily")} THEN 'per_form_daily_limit' END`;
  return sql`
    INSERT INTO ${notifications} (id, form_id, submission_id, "to", subject, reply_to, status, attempts, created_at,
      next_attempt_at, kind, reason, body, from_name)
    SELECT ${p("id")}, ${p("formId")}, ${p("submissionId")}, ${p("shownTo")}, ${p("subject")}, ${p("replyTo")},
      CASE WHEN v.reason IS NOT NULL THEN 'refused' WHEN ${p("live")} = 1 THEN 'pending' ELSE 'recorded' END, 0, ${p("createdAt")},
      CASE WHEN v.reason IS NULL AND ${p("live")} = 1 THEN ${p("createdAt")} END, 'confirmation', v.reason,
      CASE WHEN v.reason IS NULL THEN ${p("body")} END, ${p("fromName")}
    FROM (SELECT ${verdict} AS reason) v
    WHERE EXISTS (SELECT 1 FROM ${submissions} WHERE id = ${p("submissionId")})`;
}

/** The values of one confirmation's statement (see confirmationInsert). */
export interface ConfirmationValues {
  id: string;
  formId: string;
  submissionId: string;
  /** The recipient, or null when the field holds no one valid address. */
  to: string | null;
  /** What the delivery log shows as the recipient: the address, or a one-line hint of what was posted. */
  shownTo: string;
  subject: string;
  replyTo: string | null;
  body: string;
  fromName: string | null;
  createdAt: number;
  /** 1 for a live form, 0 for a test form (its confirmations are recorded, never sent). */
  live: number;
  /** A refusal known before counting (spam, invalid_address), or null. */
  fixed: RefusalReason | null;
  addressSince: number;
  daySince: number;
  perFormDaily: number;
}

/**
 * The values of a submission's confirmation, or null when the form sends none. `link` makes the double opt-in
 * link of a submission, valid until a time (ms); it is asked only for a submission that awaits its opt-in.
 * `language` is the visitor's, for the words formsvc adds.
 */
export function confirmationValues(
  form: ConfirmingForm,
  row: Pick<SubmissionRow, "id" | "createdAt" | "isSpam">,
  data: Record<string, unknown>,
  link: ((submissionId: string, expiresAt: number, language?: string) => string) | null,
  language?: string,
): ConfirmationValues | null {
  const setting = confirmationOf(form);
  if (!setting?.enabled) return null;
  const now = row.createdAt;
  const to = recipientOf(data[setting.field]);
  const optIn = setting.doubleOptIn && !row.isSpam && to !== null ? (link?.(row.id, now + setting.optInDays * DAY, language) ?? null) : null;
  const rendered = renderConfirmation(setting, { formName: form.name, date: iso(now), data, link: optIn, language });
  // An address that is no address is kept only as a hint of what was posted: one line, cut.
  const posted = data[setting.field];
  return {
    id: newId("notification", now),
    formId: form.id,
    submissionId: row.id,
    to,
    shownTo: to ?? headerSafe(typeof posted === "string" ? posted : "").slice(0, 254),
    subject: rendered.subject,
    replyTo: setting.replyTo,
    body: rendered.text,
    fromName: setting.fromName,
    createdAt: now,
    live: form.mode === "live" ? 1 : 0,
    fixed: row.isSpam ? "spam" : to === null ? "invalid_address" : null,
    addressSince: now - setting.perAddressHours * HOUR,
    daySince: now - DAY,
    perFormDaily: setting.perFormDaily,
  };
}
