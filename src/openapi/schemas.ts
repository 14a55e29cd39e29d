import { z } from "zod";
import { ERROR_STATUS } from "../errors.ts";
import { fieldRules, otherFields } from "../services/submissions/fields.ts";
import { WEBHOOK_FORMATS } from "../lib/webhook-message.ts";
import { CONDITION_OPS } from "../services/outbox/conditions.ts";
import { DESTINATION_TYPES } from "../services/outbox/destination-types/index.ts";
import { CAPTCHA_PROVIDERS, PAYMENT_STATUSES, SPAM_REASONS } from "../domain/types.ts";
import { PAYMENT_PROVIDERS } from "../services/payments/form-payment.ts";
import { FILTERS } from "../services/submissions/submissions.ts";
import { CONFIRMATION_RANGES, PAGE_LIMIT } from "../domain/limits.ts";
import { RETENTION_DAYS } from "../lib/validate.ts";
import { LANGUAGES } from "../lib/i18n/index.ts";

// What the API answers, as zod schemas: the OpenAPI document is generated from them, and the API tests check
// every answer against that document, so a field that drifts from what is written here fails the suite.
// Objects are closed (z.object becomes additionalProperties: false): a field the server adds must be written here.

const time = () => z.iso.datetime().describe("ISO 8601 UTC with milliseconds: 2026-11-22T12:00:00.000Z.");
const nullableTime = () => time().nullable();
const id = (prefix: string) => z.string().regex(new RegExp(`^${prefix}_[0-9A-Za-z]+$`));
const pageLimit = () => z.int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max);
const offsetPage = () => z.object({ limit: pageLimit(), offset: z.int().min(0), hasMore: z.boolean() });

/** Makes every response schema, each with the name it has under components.schemas. */
export function responseSchemas() {
  const Condition = z
    .object({ field: z.string(), op: z.enum(CONDITION_OPS), value: z.union([z.string(), z.array(z.string())]).optional() })
    .describe("One condition: the field's value, as text ignoring case, equals, contains, is in the list, or is not empty.");
  const ErrorBody = z
    .object({
      error: z.object({
        code: z.enum(Object.keys(ERROR_STATUS) as [keyof typeof ERROR_STATUS]).describe("Stable, for programs; the status table is in docs/api.md."),
        message: z.string().describe("A sentence a person can act on."),
        field: z.string().optional().describe("The one input at fault, when there is one (a body field, a query parameter)."),
        requestId: z.string().optional().describe("On a 5xx only: the request's id (its X-Request-Id header), which the server's log line for it carries."),
      }),
      errors: z
        .array(z.object({ field: z.string().optional(), code: z.string(), message: z.string() }))
        .describe("Every input at fault: one item for a single error (the same as `error`), one per field for validation_failed."),
    })
    .describe("The one error shape of the management API and of a JSON submission.");

  const Form = z
    .object({
      id: id("frm"),
      name: z.string().min(1).max(200),
      slug: z.string().regex(/^[a-z0-9][a-z0-9-]{2,63}$/),
      mode: z.enum(["live", "test"]).describe("The mode of the key that made it; a key sees only its own mode's forms."),
      isActive: z.boolean().describe("False: submissions are refused with 403 form_inactive."),
      submissionCount: z.int().min(0).describe("Submissions that are not spam."),
      createdAt: time(),
      updatedAt: time(),
      notificationEmail: z.string().nullable(),
      redirectUrl: z.string().nullable(),
      allowedDomains: z.array(z.string()).describe("Host names a submission may come from; empty: any."),
      captcha: z
        .union([
          z.object({
            provider: z.enum(CAPTCHA_PROVIDERS),
            siteKey: z.string().nullable().describe("The provider's public site key, which the form's page and embed render its widget with."),
          }),
          z.object({ provider: z.literal("altcha"), complexity: z.int().describe("The largest counter a challenge asks for.") }),
        ])
        .nullable()
        .describe("The captcha checked before storing; a provider's secret is never shown."),
      submitUrl: z.string().describe("The form's public address, for the HTML form's action or fetch()."),
      fileUploads: z.boolean(),
      retentionDays: z.int().min(RETENTION_DAYS.min).max(RETENTION_DAYS.max).nullable().describe("Days a submission is kept; null: for ever."),
      spamRetentionDays: z.int().min(RETENTION_DAYS.min).max(RETENTION_DAYS.max).nullable().describe("Days spam is kept; null: for ever."),
      fields: fieldRules(z).describe("The fields the form declares, in their order; [] when it declares none (any field is taken as sent)."),
      otherFields: otherFields(z).describe("What a post's undeclared fields become when the form declares fields: keep, drop or refuse."),
      confirmation: z
        .object({
          enabled: z.boolean(),
          field: z.string().describe("The field whose value is the recipient."),
          subject: z.string(),
          text: z.string(),
          fromName: z.string().nullable(),
          replyTo: z.string().nullable(),
          doubleOptIn: z.boolean(),
          optInDays: z.int().min(CONFIRMATION_RANGES.optInDays.min).max(CONFIRMATION_RANGES.optInDays.max),
          perAddressHours: z.int().min(CONFIRMATION_RANGES.perAddressHours.min).max(CONFIRMATION_RANGES.perAddressHours.max),
          perFormDaily: z.int().min(CONFIRMATION_RANGES.perFormDaily.min).max(CONFIRMATION_RANGES.perFormDaily.max),
        })
        .nullable()
        .describe("The confirmation email to the person who submitted, and double opt-in, every default filled in; null: none."),
      spamRules: z
        .object({
          blockedWords: z.array(z.string()).optional(),
          blockedEmails: z.array(z.string()).optional(),
          blockDisposableEmails: z.boolean().optional(),
          maxLinks: z.int().optional(),
          duplicateWindowHours: z.int().optional(),
        })
        .nullable()
        .describe("The rules a post is checked against; a post that breaks one is kept as spam, its reason naming the rule."),
      spamFilter: z
        .object({ enabled: z.boolean(), threshold: z.number().min(0).max(1) })
        .describe("The account's learning filter on this form: a score over threshold makes a post spam (spamReason filter)."),
      page: z
        .object({
          enabled: z.boolean(),
          title: z.string().nullable().describe("The page's heading; null: the form's name."),
          description: z.string().nullable(),
          logoUrl: z.string().nullable(),
          accentColor: z.string().nullable().describe("#rgb or #rrggbb: the button and the focus ring."),
          submitLabel: z.string().nullable().describe("The button's text; null: the visitor's language's word for Send."),
          thankYouMessage: z.string().nullable().describe("Shown after a post when the form has no redirectUrl; null: the visitor's language's."),
          language: z
            .enum(LANGUAGES as [string, ...string[]])
            .nullable()
            .describe("The page's language whatever the browser asks; null: the visitor's."),
        })
        .describe("The page formsvc serves at the form's address for a browser, and the embed (/embed.js); disabled by default."),
      notificationRoutes: z
        .array(z.object({ to: z.string(), when: z.array(Condition) }))
        .describe("The notification goes to the first route whose conditions the submission meets, else to notificationEmail."),
      payment: z
        .object({
          provider: z.enum(PAYMENT_PROVIDERS),
          currency: z.string().describe("A three-letter ISO code, lowercase: eur, usd."),
          amount: z.int().optional().describe("The fixed amount, in the currency's minor units (1500 is 15.00)."),
          amountField: z.string().optional().describe("The field whose value, one of amounts, is the amount the visitor chose."),
          amounts: z.array(z.int()).optional().describe("The amounts a visitor may choose, in minor units."),
          description: z.string().optional().describe("The line the visitor reads on the payment page; absent: the form's name."),
        })
        .nullable()
        .describe("The payment a post makes before it is kept (docs/api.md, Payments); null: none."),
    })
    .describe("A form, the same in every response.");

  const FormList = z.object({ forms: z.array(Form).describe("Newest first.") });

  const FileRef = z
    .object({ file: id("fil"), name: z.string(), type: z.string(), size: z.int().min(0) })
    .describe("What an uploaded file's field holds in data; download it at .../submissions/{sid}/files/{file}.");

  const Submission = z
    .object({
      id: id("sub"),
      data: z.record(z.string(), z.unknown()).describe("The fields as sent (special fields removed); a file field holds a FileRef or an array of them."),
      createdAt: time(),
      isRead: z.boolean(),
      isStarred: z.boolean(),
      isSpam: z.boolean(),
      spamReason: z.enum(SPAM_REASONS).nullable().describe("Why it is spam; null when it is not."),
      confirmedAt: nullableTime()
        .optional()
        .describe("Only on a double opt-in form's submission: when its link was opened; null while it waits (filter=unconfirmed)."),
      confirmedFrom: z.string().nullable().optional().describe("Only with confirmedAt: the client address the link was opened from."),
      payment: z
        .object({
          status: z.enum(PAYMENT_STATUSES).describe("awaiting (not kept: filter=awaiting_payment), paid, expired (never kept) or refunded (still kept)."),
          amount: z.int().describe("In the currency's minor units."),
          currency: z.string(),
          sessionId: z.string().nullable().describe("The Stripe Checkout Session (cs_…), once made."),
          paymentIntent: z.string().nullable().describe("The Stripe PaymentIntent (pi_…), once paid."),
        })
        .optional()
        .describe("Only on a submission of a form that takes a payment."),
      spamScore: z.number().min(0).max(1).optional().describe("The learning filter's score (0 to 1); present only when the filter scored the submission."),
      spamTokens: z
        .array(z.string())
        .optional()
        .describe("The few tokens that pulled the score most towards spam; present only when the filter scored the submission."),
    })
    .describe("A submission.");

  const SubmissionPage = z.object({
    submissions: z.array(Submission),
    fields: z.array(z.string()).describe("Every field name seen in any submission of the form, in order of first appearance."),
    pagination: z.object({
      limit: pageLimit(),
      offset: z.int().min(0),
      total: z
        .int()
        .min(0)
        .describe(`Submissions that the filter (${FILTERS.join(", ")}), since and q match.`),
      hasMore: z.boolean(),
      nextCursor: id("sub").nullable().describe("Pass as `after` for the next page; null on the last."),
    }),
  });

  const permissions = z.array(z.enum(["read", "write", "delete", "admin"]));
  const keyType = z.enum(["live", "test", "form"]);
  const ApiKey = z
    .object({
      id: id("key"),
      type: keyType,
      name: z.string().nullable(),
      prefix: z.string().describe("The start of the key, to tell keys apart; the key itself is never shown again."),
      permissions,
      formId: id("frm").nullable(),
      mode: z.enum(["live", "test"]),
      createdAt: time(),
      revokedAt: nullableTime(),
      lastUsedAt: nullableTime(),
    })
    .describe("A key as listed: never the secret.");
  const KeyList = z.object({ keys: z.array(ApiKey) });
  const Activity = z
    .object({
      id: id("act"),
      at: time(),
      actor: z.string().describe("Who acted: user:<email>, key:<prefix> or cli."),
      action: z.string().describe("What was done, as resource.verb: form.update, key.create, webhook.rotate, user.invite, submissions.spam …"),
      target: z.string().describe("The id (or, for an invitation, the email) acted on."),
      summary: z.string().describe("A short sentence of what changed; never a secret."),
    })
    .describe("One entry of the account's activity log.");
  const ActivityPage = z.object({
    activity: z.array(Activity),
    pagination: z.object({ limit: pageLimit(), hasMore: z.boolean(), nextCursor: id("act").nullable() }),
  });
  const NewApiKey = z
    .object({
      id: id("key"),
      key: z
        .string()
        .regex(/^(sk_live_|sk_test_|fk_)[0-9A-Za-z_]{32,}$/)
        .describe("The key, shown in full this once."),
      type: keyType,
      permissions,
      formId: id("frm").nullable(),
      name: z.string().nullable(),
      createdAt: time(),
    })
    .describe("A key just made: the only answer that holds the key itself.");

  const Notification = z.object({
    id: id("ntf"),
    kind: z.enum(["notification", "confirmation"]).describe("notification: to the owner; confirmation: to the person who submitted."),
    submissionId: id("sub"),
    to: z.string(),
    subject: z.string(),
    replyTo: z.string().nullable(),
    status: z
      .enum(["pending", "sent", "failed", "recorded", "refused"])
      .describe("recorded: a test-mode form's email, kept instead of sent; refused: a confirmation not sent, see reason."),
    attempts: z.int().min(0),
    lastError: z
      .string()
      .nullable()
      .describe(
        "Why the last attempt failed or the message was refused; on a sent one, what had to be left out (a copy or the Reply-To the mail server could not take), else null.",
      ),
    createdAt: time(),
    sentAt: nullableTime(),
    nextAttemptAt: nullableTime(),
    reason: z
      .enum(["spam", "invalid_address", "per_address_limit", "per_form_daily_limit"])
      .nullable()
      .describe("Why a confirmation was refused; null otherwise."),
  });
  const NotificationPage = z.object({ notifications: z.array(Notification), pagination: offsetPage() });
  const Retried = z.object({ retried: z.int().min(0).describe("Notifications put back in the queue.") });

  const webhookFields = {
    id: id("whk"),
    formId: id("frm"),
    url: z.string(),
    description: z.string().nullable(),
    format: z.enum(WEBHOOK_FORMATS).describe("standard: signed Standard Webhooks JSON; slack and discord: a chat message."),
    when: z.array(Condition).describe("Sent only for submissions that meet every condition; empty: every kept submission."),
    secretPrefix: z.string().describe("The start of the secret, to tell secrets apart."),
    createdAt: time(),
  };
  const Webhook = z.object(webhookFields).describe("A webhook endpoint as listed: the secret hidden.");
  const WebhookList = z.object({ webhooks: z.array(Webhook) });
  const WebhookWithSecret = z
    .object({
      ...webhookFields,
      secret: z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/=]+$/)
        .describe("Shown in full on create and rotate only."),
    })
    .describe("A webhook endpoint with its signing secret.");
  const WebhookDelivery = z.object({
    id: id("dlv"),
    webhookId: id("whk").nullable().describe("The webhook endpoint it goes to; null for a destination's delivery."),
    destinationId: id("dst").nullable().describe("The destination it goes to; null for a webhook's delivery."),
    submissionId: id("sub"),
    messageId: id("msg").describe("The webhook-id header, the same on every attempt of one event."),
    eventType: z.string(),
    status: z.enum(["pending", "succeeded", "failed"]),
    attempts: z.int().min(0),
    responseStatus: z.int().nullable(),
    durationMs: z.number().min(0).nullable(),
    responseSnippet: z.string().nullable(),
    error: z.string().nullable(),
    createdAt: time(),
    lastAttemptAt: nullableTime(),
    nextAttemptAt: nullableTime(),
    deliveredAt: nullableTime(),
  });
  const DeliveryPage = z.object({ deliveries: z.array(WebhookDelivery), pagination: offsetPage() });
  const Destination = z
    .object({
      id: id("dst"),
      formId: id("frm"),
      type: z.enum(DESTINATION_TYPES),
      config: z.record(z.string(), z.unknown()).describe("The type's settings as given, secrets left out."),
      fields: z.record(z.string(), z.string()).nullable().describe("Form field → the destination's name; null: every field under its own name."),
      when: z.array(Condition),
      enabled: z.boolean(),
      createdAt: time(),
    })
    .describe("A destination: where each kept submission is sent besides the webhooks.");
  const DestinationList = z.object({ destinations: z.array(Destination) });
  const DestinationTest = z.object({
    ok: z.boolean(),
    responseStatus: z.int().nullable(),
    durationMs: z.int().min(0),
    error: z.string().nullable().describe("Why it failed, in the owner's words; null on success."),
  });

  const Erasure = z.object({
    erased: z.int().min(0).describe("Submissions erased (or, with dryRun, that would be)."),
    forms: z.record(id("frm"), z.int().min(1)).describe("How many of them each form held."),
    dryRun: z.boolean(),
  });

  const SubmitSuccess = z.object({
    success: z.literal(true),
    message: z.string(),
    id: id("sub"),
    next: z
      .string()
      .describe("The absolute address a browser would have been sent to: the payment page, else _next, else the form's redirectUrl, else /thanks."),
    paymentUrl: z.string().optional().describe("Only for a form that takes a payment: Stripe's page where the visitor pays; the submission is kept once paid."),
  });

  const AltchaChallenge = z
    .object({
      parameters: z.object({
        algorithm: z.literal("PBKDF2/SHA-256"),
        cost: z.int(),
        data: z.object({ form: z.string().describe("The form's slug: a solution is good for this form only.") }),
        expiresAt: z.int().describe("Unix seconds; a solution must be posted before."),
        keyLength: z.int(),
        keyPrefix: z.string(),
        keySignature: z.string(),
        nonce: z.string(),
        salt: z.string(),
      }),
      signature: z.string(),
    })
    .describe("An ALTCHA challenge, in the format the altcha widget solves; its solution goes in the form's altcha field.");
  const Health = z.object({ status: z.literal("ok") });

  return {
    Error: ErrorBody,
    Form,
    FormList,
    FileRef,
    Submission,
    SubmissionPage,
    ApiKey,
    KeyList,
    NewApiKey,
    Activity,
    ActivityPage,
    Notification,
    NotificationPage,
    Retried,
    Webhook,
    WebhookList,
    WebhookWithSecret,
    WebhookDelivery,
    DeliveryPage,
    Destination,
    DestinationList,
    DestinationTest,
    Erasure,
    SubmitSuccess,
    AltchaChallenge,
    Health,
  };
}

/** The names of the response schemas under components.schemas. */
export type ResponseSchemaName = keyof ReturnType<typeof responseSchemas>;
