import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Times are stored as integer milliseconds since the epoch and shown as ISO 8601 strings. */
const millis = (name: string) => integer(name).notNull();

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  isDefault: integer("is_default", { mode: "boolean" }).notNull().default(false),
  createdAt: millis("created_at"),
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
    createdAt: millis("created_at"),
    updatedAt: millis("updated_at"),
  },
  (t) => [uniqueIndex("forms_slug").on(t.slug), index("forms_account").on(t.accountId, t.mode, t.createdAt)],
);

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
  },
  (t) => [
    // One index per list filter, each ending in the list's order, so that no list sorts or scans other forms.
    index("submissions_form_spam").on(t.formId, t.isSpam, t.createdAt, t.id),
    index("submissions_form_unread")
      .on(t.formId, t.createdAt, t.id)
      .where(sql`${t.isSpam} = 0 AND ${t.isRead} = 0`),
    index("submissions_form_starred")
      .on(t.formId, t.createdAt, t.id)
      .where(sql`${t.isSpam} = 0 AND ${t.isStarred} = 1`),
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

/** The outbox of notification emails: written with the submission, sent by the server's sender, kept as a record. */
export const notifications = sqliteTable(
  "notifications",
  {
    id: text("id").primaryKey(),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id, { onDelete: "cascade" }),
    to: text("to").notNull(),
    subject: text("subject").notNull(),
    replyTo: text("reply_to"),
    /** pending (to be sent) | sent | failed (gave up) | recorded (a test form's: never sent) */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** Why the last attempt failed, as the mail server or the network said it; never credentials. */
    lastError: text("last_error"),
    createdAt: millis("created_at"),
    sentAt: integer("sent_at"),
    /** When a pending notification is next tried; null once it is no longer pending. */
    nextAttemptAt: integer("next_attempt_at"),
  },
  (t) => [
    index("notifications_form").on(t.formId, t.createdAt, t.id),
    // Deleting a submission (or a form, through its submissions) finds its notification without a scan.
    index("notifications_submission").on(t.submissionId),
    // What the sender asks for: only pending rows, soonest first.
    index("notifications_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  ],
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
export type NotificationRow = typeof notifications.$inferSelect;
