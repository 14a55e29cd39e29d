import { sql } from "drizzle-orm";
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Times are stored as integer milliseconds since the epoch and shown as ISO 8601 strings. */
export const millis = (name: string) => integer(name).notNull();

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  createdAt: millis("created_at"),
  /** Submissions the owner has marked spam and not spam: the learning filter acts once both reach its minimum. */
  spamMarks: integer("spam_marks").notNull().default(0),
  hamMarks: integer("ham_marks").notNull().default(0),
  /** The tokens of those marks, each kind's sum of the counts in spam_tokens: the filter weighs a token against them. */
  spamTokenTotal: integer("spam_token_total").notNull().default(0),
  hamTokenTotal: integer("ham_token_total").notNull().default(0),
});

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** live | test | form */
    type: text("type").notNull(),
    /** live | test: the forms the key may see (a form key takes its form's mode). */
    mode: text("mode").notNull(),
    formId: text("form_id").references(() => forms.id, { onDelete: "cascade" }),
    /** Comma-separated subset of read,write,delete,admin. */
    permissions: text("permissions").notNull(),
    name: text("name"),
    /** sha256 of the whole key, hex; the key itself is never stored. */
    hash: text("hash").notNull(),
    /** The first characters of the key, shown in lists so that a person can tell keys apart. */
    prefix: text("prefix").notNull(),
    createdAt: millis("created_at"),
    revokedAt: integer("revoked_at"),
    /** When the key last authenticated a request, to the minute (see keys.authenticate); null: never used. */
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [uniqueIndex("api_keys_hash").on(t.hash), index("api_keys_account").on(t.accountId, t.createdAt)],
);

export const forms = sqliteTable(
  "forms",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    mode: text("mode").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    isActive: integer("is_active", { mode: "boolean" }).notNull().default(true),
    notificationEmail: text("notification_email"),
    redirectUrl: text("redirect_url"),
    /** JSON array of lowercased host patterns. */
    allowedDomains: text("allowed_domains").notNull().default("[]"),
    /** JSON array of every field name seen, in order of first appearance; kept up to date on write. */
    fields: text("fields").notNull().default("[]"),
    /** Counters kept up to date on write so that lists never count rows. */
    submissionCount: integer("submission_count").notNull().default(0),
    spamCount: integer("spam_count").notNull().default(0),
    unreadCount: integer("unread_count").notNull().default(0),
    starredCount: integer("starred_count").notNull().default(0),
    /** createdAt of the form's newest submission: the next one is stored strictly later (see receive). */
    lastSubmissionAt: integer("last_submission_at").notNull().default(0),
    /** Whether a multipart post may carry files (docs/api.md, "Files"); off unless the owner turns it on. */
    fileUploads: integer("file_uploads", { mode: "boolean" }).notNull().default(false),
    /** Submissions older than this many days are purged; null keeps them for ever (docs/api.md, "Retention and erasure"). */
    retentionDays: integer("retention_days"),
    /** Spam older than this many days is purged; null keeps it for ever. */
    spamRetentionDays: integer("spam_retention_days").default(30),
    /** recaptcha | hcaptcha | turnstile, or null: no captcha is checked. */
    captchaProvider: text("captcha_provider"),
    /** The provider's secret key: write-only, never in a response or a log. */
    captchaSecret: text("captcha_secret"),
    /** JSON array of the fields the owner declared (docs/api.md, "Fields of a form"), or null: any field is taken as sent. */
    fieldRules: text("field_rules"),
    /** keep | drop | refuse: what a post's undeclared fields become when the form declares fields. */
    otherFields: text("other_fields").notNull().default("keep"),
    /** The confirmation email to the person who submitted (docs/api.md, "Confirmation email and double opt-in"), JSON; null: none. */
    confirmation: text("confirmation"),
    /** altcha: the largest counter a challenge may ask for (its difficulty); null takes the default. */
    captchaComplexity: integer("captcha_complexity"),
    /** JSON of the form's spam rules (blocked words, emails, disposable domains, links, duplicates), or null: none. */
    spamRules: text("spam_rules"),
    /** Whether the account's learning filter judges this form's submissions, and from which score (null: the default). */
    spamFilterEnabled: integer("spam_filter_enabled", { mode: "boolean" }).notNull().default(true),
    spamFilterThreshold: real("spam_filter_threshold"),
    /** JSON of the form's own page and embed (docs/api.md, "The form's page"), or null: disabled. */
    page: text("page"),
    /** A third-party captcha's public site key, which the page and the embed render its widget with. */
    captchaSiteKey: text("captcha_site_key"),
    /** JSON [{to, when}]: a submission is mailed to the first route it matches, else to notificationEmail; null: none. */
    notificationRoutes: text("notification_routes"),
    /** JSON of the payment a post makes (docs/api.md, "Payments"), or null: none. */
    payment: text("payment"),
    createdAt: millis("created_at"),
    updatedAt: millis("updated_at"),
  },
  (t) => [uniqueIndex("forms_slug").on(t.slug), index("forms_account").on(t.accountId, t.mode, t.createdAt)],
);

/**
 * One row: a number that every change of a form's settings raises (triggers of migration 0029), which the
 * public endpoint's cache of forms is checked against.
 */
export const formSettingsStamp = sqliteTable("form_settings_stamp", {
  id: integer("id").primaryKey(),
  stamp: integer("stamp").notNull(),
});

export const submissions = sqliteTable(
  "submissions",
  {
    id: text("id").primaryKey(),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    /** The posted fields, JSON. */
    data: text("data").notNull(),
    createdAt: millis("created_at"),
    isRead: integer("is_read", { mode: "boolean" }).notNull().default(false),
    isStarred: integer("is_starred", { mode: "boolean" }).notNull().default(false),
    isSpam: integer("is_spam", { mode: "boolean" }).notNull().default(false),
    /** Why a submission is spam: honeypot | captcha_unverified | owner; null when it is not (or was before reasons were kept). */
    spamReason: text("spam_reason"),
    /** Waiting for the person who submitted to open their double opt-in link: outside every list but `unconfirmed`. */
    unconfirmed: integer("unconfirmed", { mode: "boolean" }).notNull().default(false),
    /** When the double opt-in link was opened, and from which client address; null otherwise. */
    confirmedAt: integer("confirmed_at"),
    confirmedFrom: text("confirmed_from"),
    /** The learning filter's score (0–1) and the tokens that weighed most (JSON), when its verdict made it spam. */
    spamScore: real("spam_score"),
    spamTokens: text("spam_tokens"),
    /** A hash of the data, so that the duplicate rule finds the same post of the last hours through an index. */
    dataHash: text("data_hash"),
    /** JSON of the notification a spam verdict held back ({subject?, replyTo?}); sent once when it leaves spam. */
    held: text("held"),
    /** spam | ham: what the owner's last mark taught the account's filter from this submission; null: nothing. */
    trained: text("trained"),
    /** Not kept until paid (docs/api.md, "Payments"): awaiting its payment, or expired unpaid; outside every list but theirs. */
    unpaid: integer("unpaid", { mode: "boolean" }).notNull().default(false),
    /** awaiting | paid | expired | refunded, or null: no payment asked. */
    paymentStatus: text("payment_status"),
    /** In the currency's minor units. */
    paymentAmount: integer("payment_amount"),
    paymentCurrency: text("payment_currency"),
    /** The provider's checkout session, where the visitor pays, and the payment it made. */
    paymentSession: text("payment_session"),
    paymentIntent: text("payment_intent"),
    paymentUrl: text("payment_url"),
    /** When an awaiting payment past a day with no event was asked for its session's state. */
    paymentCheckedAt: integer("payment_checked_at"),
  },
  (t) => [
    index("submissions_form_hash").on(t.formId, t.dataHash, t.createdAt).where(sql`${t.dataHash} IS NOT NULL`),
    // One index per list filter, each ending in the list's order, so that no list sorts or scans other forms.
    index("submissions_form_spam").on(t.formId, t.isSpam, t.createdAt, t.id),
    index("submissions_form_unread").on(t.formId, t.createdAt, t.id).where(sql`${t.isSpam} = 0 AND ${t.isRead} = 0`),
    index("submissions_form_starred").on(t.formId, t.createdAt, t.id).where(sql`${t.isSpam} = 0 AND ${t.isStarred} = 1`),
    index("submissions_form_unconfirmed").on(t.formId, t.createdAt, t.id).where(sql`${t.unconfirmed} = 1`),
    index("submissions_form_payment").on(t.formId, t.paymentStatus, t.createdAt, t.id).where(sql`${t.paymentStatus} IS NOT NULL`),
    index("submissions_awaiting_payment").on(t.createdAt).where(sql`${t.paymentStatus} = 'awaiting'`),
    index("submissions_payment_intent").on(t.paymentIntent).where(sql`${t.paymentIntent} IS NOT NULL`),
  ],
);

/**
 * Each form's counters per UTC day of createdAt, kept with the form's own counters: a list with `since`
 * counts the days after it instead of walking every row, and a deep offset finds its day without walking.
 */
export const submissionDays = sqliteTable(
  "submission_days",
  {
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    /** floor(createdAt / 86,400,000): days since the epoch, UTC. */
    day: integer("day").notNull(),
    submissionCount: integer("submission_count").notNull().default(0),
    spamCount: integer("spam_count").notNull().default(0),
    unreadCount: integer("unread_count").notNull().default(0),
    starredCount: integer("starred_count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.formId, t.day] })],
);

/**
 * The same counters per minute of createdAt, kept with the day's: a day that took a flood (a million
 * submissions) is found into by its minutes, so a deep offset or a `since` inside it walks one minute's rows,
 * not the day's (docs/performance.md, "Minute counters").
 */
export const submissionMinutes = sqliteTable(
  "submission_minutes",
  {
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    /** floor(createdAt / 60,000): minutes since the epoch, UTC. */
    minute: integer("minute").notNull(),
    submissionCount: integer("submission_count").notNull().default(0),
    spamCount: integer("spam_count").notNull().default(0),
    unreadCount: integer("unread_count").notNull().default(0),
    starredCount: integer("starred_count").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.formId, t.minute] })],
);

/** Views of a form's page and embed per UTC day: each visitor counted once a day (services/page-views.ts). */
export const formViews = sqliteTable(
  "form_views",
  {
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    views: integer("views").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.formId, t.day] })],
);

/** Today's visitors of each form, as keyed hashes (the key changes daily); earlier days are deleted. */
export const formVisitors = sqliteTable(
  "form_visitors",
  {
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    visitor: text("visitor").notNull(),
  },
  (t) => [primaryKey({ columns: [t.formId, t.day, t.visitor] }), index("form_visitors_day").on(t.day)],
);

/**
 * Uploaded files, kept in the database beside their submission so that one backup (and a libSQL server)
 * holds everything; gone with their submission, and so with their form.
 */
export const files = sqliteTable(
  "files",
  {
    id: text("id").primaryKey(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id, { onDelete: "cascade" }),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    /** The field the file was posted under. */
    field: text("field").notNull(),
    /** The file name as the browser sent it (untrusted: made safe wherever it is used as a name). */
    name: text("name").notNull(),
    type: text("type").notNull(),
    size: integer("size").notNull(),
    content: blob("content", { mode: "buffer" }).notNull(),
    createdAt: millis("created_at"),
  },
  (t) => [index("files_submission").on(t.submissionId), index("files_form").on(t.formId)],
);

/**
 * The Idempotency-Key of a public post that stored a submission: a repeat with the same key (per form, within 24
 * hours) gets the first answer again. Deleted with its submission, and purged after 24 hours.
 */
export const idempotencyKeys = sqliteTable(
  "idempotency_keys",
  {
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    /** SHA-256 of the post's fields as read: a repeat must send the same ones. */
    fingerprint: text("fingerprint").notNull(),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id, { onDelete: "cascade" }),
    /** Where the first answer sent the browser, and whether that was `_next` or the form's redirect. */
    location: text("location").notNull(),
    redirected: integer("redirected", { mode: "boolean" }).notNull(),
    createdAt: millis("created_at"),
  },
  (t) => [
    primaryKey({ columns: [t.formId, t.key] }),
    index("idempotency_keys_submission").on(t.submissionId),
    index("idempotency_keys_created").on(t.createdAt),
  ],
);

/** The account's learning filter: how often each token was in a submission the owner marked spam or not spam. */
export const spamTokens = sqliteTable(
  "spam_tokens",
  {
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    token: text("token").notNull(),
    spam: integer("spam").notNull().default(0),
    ham: integer("ham").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.accountId, t.token] })],
);

/** ALTCHA solutions already accepted (by their challenge's signature), kept until the challenge expires. */
export const altchaUsed = sqliteTable(
  "altcha_used",
  {
    signature: text("signature").primaryKey(),
    expiresAt: millis("expires_at"),
  },
  (t) => [index("altcha_used_expires").on(t.expiresAt)],
);

/** Facts the server records for the local CLI, such as the public addresses it serves under. */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
export type FormRow = typeof forms.$inferSelect;
export type SubmissionRow = typeof submissions.$inferSelect;
export type SubmissionDayRow = typeof submissionDays.$inferSelect;
export type FileRow = typeof files.$inferSelect;
