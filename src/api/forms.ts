import { answerBaseUrl } from "../services/urls.ts";
import { DEFAULT_SPAM_RETENTION_DAYS } from "../domain/types.ts";
import {
  COMPLEXITY_RANGE,
  CONFIRMATION_DEFAULTS as CONFIRMATION,
  CONFIRMATION_RANGES,
  DEFAULT_COMPLEXITY,
  DEFAULT_FILTER_THRESHOLD,
  FILTER_MIN_MARKS,
} from "../domain/limits.ts";
import { json, noContent } from "../http/respond.ts";
import { RETENTION_DAYS } from "../lib/validate.ts";
import { createSchema, updateSchema } from "../services/forms.ts";
import { FORM, LOCATION, operation, type RequestBody } from "./operation.ts";

const days = (what: string, byDefault: string) =>
  `${what}: a whole number of days from ${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}, or null to keep for ever. ${byDefault}`;

// What a form's fields mean beyond the types the zod schemas give them (defaults, what null does, rules
// checked by the service rather than the schema).
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
  notificationRoutes:
    "A list of {to, when}: the notification goes to the first route whose when (conditions, as on webhooks: docs/api.md, Conditions) the submission meets, else to notificationEmail. null or [] removes them.",
  spamFilter: `enabled (default true) and threshold (0 to 1, default ${DEFAULT_FILTER_THRESHOLD}). The filter acts once the account has marked ${FILTER_MIN_MARKS} submissions spam and ${FILTER_MIN_MARKS} not spam.`,
  confirmation: `The confirmation email to the person who submitted (docs/api.md, Confirmation email): {enabled, field (default ${CONFIRMATION.field}), subject, text, fromName?, replyTo?, doubleOptIn? (${CONFIRMATION.doubleOptIn}), optInDays? ${CONFIRMATION_RANGES.optInDays.min}-${CONFIRMATION_RANGES.optInDays.max} (${CONFIRMATION.optInDays}), perAddressHours? (${CONFIRMATION.perAddressHours}), perFormDaily? (${CONFIRMATION.perFormDaily})}. subject and text take {{field}}, {{form}}, {{date}} and, with doubleOptIn, {{link}}. Given whole on update; null removes it.`,
};

const FORM_CREATE: RequestBody = {
  name: "FormCreate",
  schema: createSchema,
  example: { name: "Contact", notificationEmail: "owner@example.com", allowedDomains: ["example.com"] },
  notes: formFields,
};

const FORM_UPDATE: RequestBody = {
  name: "FormUpdate",
  schema: updateSchema,
  example: { isActive: false, redirectUrl: null },
  notes: { ...formFields, name: "1 to 200 characters after trimming; cannot be null." },
};

/** /api/forms: list, create, get, update, delete (docs/api.md, "Forms"). */
export const formOperations = [
  operation({
    method: "GET",
    path: "/api/forms",
    operationId: "listForms",
    summary: "List forms",
    tag: "Forms",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The key's account's forms of the key's mode, newest first.", schema: "FormList" },
    handler: async (ctx) => json(200, { forms: await ctx.services.forms.list(ctx.principal) }),
  }),
  operation({
    method: "POST",
    path: "/api/forms",
    operationId: "createForm",
    summary: "Create a form",
    tag: "Forms",
    scope: "account",
    permission: "write",
    body: FORM_CREATE,
    errors: [409],
    ok: { status: 201, description: "The form, in the key's mode.", schema: "Form", headers: LOCATION },
    async handler(ctx) {
      const form = await ctx.services.forms.create(ctx.principal, ctx.body);
      return json(201, form, { Location: `${answerBaseUrl(ctx.services.urls)}/api/forms/${form.id}` });
    },
  }),
  operation({
    method: "GET",
    path: FORM,
    operationId: "getForm",
    summary: "Get a form",
    tag: "Forms",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The form.", schema: "Form" },
    handler: async (ctx) => json(200, await ctx.services.forms.get(ctx.principal, ctx.params.id!)),
  }),
  operation({
    method: "PATCH",
    path: FORM,
    operationId: "updateForm",
    summary: "Update a form",
    description: "Any subset of the fields; null clears an optional one.",
    tag: "Forms",
    scope: "account",
    permission: "write",
    body: FORM_UPDATE,
    errors: [409],
    ok: { status: 200, description: "The whole updated form.", schema: "Form" },
    handler: async (ctx) => json(200, await ctx.services.forms.update(ctx.principal, ctx.params.id!, ctx.body)),
  }),
  operation({
    method: "DELETE",
    path: FORM,
    operationId: "deleteForm",
    summary: "Delete a form",
    description: "The form, its submissions, files, webhooks and notifications are gone, in one transaction.",
    tag: "Forms",
    scope: "account",
    permission: "delete",
    ok: { status: 204, description: "Deleted." },
    async handler(ctx) {
      await ctx.services.forms.remove(ctx.principal, ctx.params.id!);
      return noContent();
    },
  }),
];
