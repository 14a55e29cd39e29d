import { MAX_FILES } from "../http/multipart.ts";
import { MAX_JSON_DEPTH } from "../lib/json-scan.ts";
import { MAX_FIELD_NAME } from "../services/submissions/fields.ts";
import { MAX_FIELDS } from "../services/submissions/intake.ts";
import { DEFAULT_SPAM_RETENTION_DAYS, MAX_WEBHOOKS_PER_FORM } from "../domain/types.ts";
import {
  COMPLEXITY_RANGE,
  CONFIRMATION_DEFAULTS as CONFIRMATION,
  CONFIRMATION_RANGES,
  DEFAULT_COMPLEXITY,
  DEFAULT_FILTER_THRESHOLD,
  FILTER_MIN_MARKS,
} from "../domain/limits.ts";
import { RETENTION_DAYS } from "../lib/validate.ts";

// What the request fields mean, written beside the schemas they describe: the zod schemas give each field's
// type and range, and these sentences what a type cannot say (defaults, what null does, rules checked by the
// service rather than the schema). They are set on the generated JSON Schemas' properties by name.

const days = (what: string, byDefault: string) =>
  `${what}: a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep for ever. ${byDefault}`;

const formFields: Record<string, string> = {
  name: "1 to 200 characters after trimming.",
  slug: "3 to 64 lowercase letters, digits and dashes, unique across the server; default: 12 random lowercase letters and digits. Changing it retires the old address.",
  isActive: "Default true; false refuses submissions with 403 form_inactive.",
  notificationEmail: "Where an email goes for each new submission that is not spam; null: none.",
  redirectUrl: "An absolute http(s) URL: where a browser goes after a submission without _next; null: the /thanks page.",
  allowedDomains:
    "Host names a submission may come from (Origin, else Referer): example.com, *.example.com (subdomains only), localhost:3000. Stored lowercased without duplicates; null or []: any site.",
  fileUploads: "Default false: a file in a post is then 400 files_not_accepted.",
  retentionDays: days("Submissions older than this are deleted, spam included", "Default null."),
  spamRetentionDays: days("Spam older than this is deleted", `Default ${DEFAULT_SPAM_RETENTION_DAYS}.`),
  captcha: `The captcha verified before a submission is stored: {provider: "recaptcha" | "hcaptcha" | "turnstile", secret} (the secret is write-only), or {provider: "altcha", complexity?} (formsvc serves the challenge at /f/{slug}/altcha and the widget at /altcha.js; complexity ${COMPLEXITY_RANGE.min} to ${COMPLEXITY_RANGE.max}, default ${DEFAULT_COMPLEXITY}). null removes it.`,
  spamRules:
    "blockedWords (at most 500 words or phrases of at most 100 characters, matched whole-word, ignoring case, literally), blockedEmails (at most 500 addresses or @domains, subdomains included), blockDisposableEmails, maxLinks (0 to 1000), duplicateWindowHours (1 to 720). null removes them.",
  spamFilter: `enabled (default true) and threshold (0 to 1, default ${DEFAULT_FILTER_THRESHOLD}). The filter acts once the account has marked ${FILTER_MIN_MARKS} submissions spam and ${FILTER_MIN_MARKS} not spam.`,
  notificationRoutes:
    "A list of {to, when}: the notification goes to the first route whose when (conditions, as on webhooks: docs/api.md, Conditions) the submission meets, else to notificationEmail. null or [] removes them.",
  confirmation: `The confirmation email to the person who submitted (docs/api.md, Confirmation email): {enabled, field (default ${CONFIRMATION.field}), subject, text, fromName?, replyTo?, doubleOptIn? (${CONFIRMATION.doubleOptIn}), optInDays? ${CONFIRMATION_RANGES.optInDays.min}-${CONFIRMATION_RANGES.optInDays.max} (${CONFIRMATION.optInDays}), perAddressHours? (${CONFIRMATION.perAddressHours}), perFormDaily? (${CONFIRMATION.perFormDaily})}. subject and text take {{field}}, {{form}}, {{date}} and, with doubleOptIn, {{link}}. Given whole on update; null removes it.`,
};

/** Notes on request body fields, by component name and property. */
export const FIELD_NOTES: Record<string, Record<string, string>> = {
  FormCreate: formFields,
  FormUpdate: { ...formFields, name: "1 to 200 characters after trimming; cannot be null." },
  SubmissionUpdate: {
    isSpam:
      "true moves it to filter=spam with spamReason owner; false moves it back, spamReason null, and sends once the notification and webhooks a spam verdict held back. Either value, even the current one, teaches the account's learning filter.",
  },
  KeyCreate: {
    type: "Default: the calling key's mode. live and test must be the calling key's own mode.",
    formId: "The id or slug of a form of the same account and mode: required with type form, refused otherwise.",
    permissions:
      'Any of read, write, delete, admin (an array, or "read,write"); only permissions the calling key has. Default: all four, read for a form-level key.',
    name: "A label; at most 200 characters.",
  },
  WebhookCreate: {
    url: `An absolute http(s) address of at most 2048 characters, of a public host (a private, loopback or metadata address is 400 invalid_parameter). A form has at most ${MAX_WEBHOOKS_PER_FORM} webhooks.`,
    description: "A note; at most 500 characters.",
    format: "standard (default): the signed Standard Webhooks event; slack or discord: a short message for that service's incoming webhook.",
    when: "Conditions, all of which a submission must meet to be sent here: [{field, op: equals | contains | in | notEmpty, value?}]. Values compare as text, trimmed, ignoring case.",
  },
  DestinationCreate: {
    type: "google_sheets, airtable, notion, mailchimp, telegram, teams or ntfy (docs/api.md, Destinations).",
    config:
      "By type: google_sheets {serviceAccountKey, spreadsheetId, sheet}; airtable {token, baseId, table}; notion {token, databaseId}; mailchimp {apiKey (ending -usN), audienceId, status: subscribed | pending (default), emailField? (email)}; telegram {botToken, chatId}; teams {url}; ntfy {topic, token?, priority?, tags?}. Each but teams takes baseUrl, which replaces the scheme, host and port of the vendor's API. Secrets (serviceAccountKey, token, apiKey, botToken, url) are never shown again.",
    fields:
      'Form field → the destination\'s name ({"email": "Email address"}): only the named fields are sent, under these names. Without it, every field under its own name. For mailchimp, the names are merge tags.',
    when: "Conditions, as on webhooks: sent only for submissions that meet them all.",
    enabled: "Default true; false queues nothing for it.",
  },
  EraseRequest: {
    email: "The address: a submission is erased when any of its values (at any depth) equals it, trimmed and ignoring case.",
    dryRun: "true: only count what would be erased.",
  },
};

/** What a submission body may hold, with the limits the endpoint enforces. */
export const SUBMISSION_BODY = [
  "The form's fields; a key sent several times (checkbox groups) becomes an array, JSON values are kept as sent.",
  `At most ${MAX_FIELDS} fields (after the special fields are removed), names of at most ${MAX_FIELD_NAME} characters, JSON nested at most ${MAX_JSON_DEPTH} levels,`,
  `numbers that a double holds exactly, ${MAX_FILES} files (multipart, on a form with fileUploads), the whole body within --max-body.`,
].join(" ");
