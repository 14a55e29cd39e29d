// The outbox's tables: the notification emails, the webhook endpoints and destinations, and the deliveries to them.
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { forms, millis, submissions } from "./tables.ts";

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
    /** Addresses the post's `_cc` asked to be copied, comma-separated, or null. */
    cc: text("cc"),
    /** pending (to be sent) | sent | failed (gave up) | recorded (a test form's: never sent) | refused (a confirmation not sent, see reason) */
    status: text("status").notNull(),
    /** notification (to the owner) | confirmation (to the person who submitted, docs/api.md, "Confirmation email and double opt-in") */
    kind: text("kind").notNull().default("notification"),
    /** Why a confirmation was refused (spam, test_mode, invalid_address, per_address_limit, per_form_daily_limit). */
    reason: text("reason"),
    /** A confirmation's text, rendered when it was queued; null for notifications (built when sent). */
    body: text("body"),
    /** The sender name a confirmation goes out under; null: the server's own. */
    fromName: text("from_name"),
    attempts: integer("attempts").notNull().default(0),
    /** Why the last attempt failed, as the mail server or the network said it; never credentials. */
    lastError: text("last_error"),
    createdAt: millis("created_at"),
    sentAt: integer("sent_at"),
    /** When a pending notification is next tried; null once it is no longer pending. */
    nextAttemptAt: integer("next_attempt_at"),
    /** The server process that holds this notification, until claimed_until: no other sends it meanwhile. */
    claimedBy: text("claimed_by"),
    claimedUntil: integer("claimed_until"),
  },
  (t) => [
    index("notifications_form").on(t.formId, t.createdAt, t.id),
    // Deleting a submission (or a form, through its submissions) finds its notification without a scan.
    index("notifications_submission").on(t.submissionId),
    // What the sender asks for: only pending rows, soonest first.
    index("notifications_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // The limits of confirmations: how many went to one address, and to anyone, lately.
    index("notifications_confirmations").on(t.formId, t.to, t.createdAt).where(sql`${t.kind} = 'confirmation'`),
  ],
);

/** A form's webhook endpoints: each event of the form is POSTed to each of them. */
export const webhooks = sqliteTable(
  "webhooks",
  {
    id: text("id").primaryKey(),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    url: text("url").notNull(),
    description: text("description"),
    /** standard (signed JSON event) | slack | discord (a short message for a chat's incoming webhook) */
    format: text("format").notNull().default("standard"),
    /** whsec_… in full: the server signs with it, so it is kept, not hashed; never listed, never logged. */
    secret: text("secret").notNull(),
    /** The secret a rotation replaced: events are signed with it too for --webhook-rotation-overlap after `secretRotatedAt`. */
    previousSecret: text("previous_secret"),
    secretRotatedAt: integer("secret_rotated_at"),
    createdAt: millis("created_at"),
    /** Attempts in a row that failed; a success sets it back to 0. */
    failureStreak: integer("failure_streak").notNull().default(0),
    /** While in the future, the endpoint's circuit is open: none of its deliveries is tried until then. */
    circuitOpenUntil: integer("circuit_open_until"),
    /** JSON of the conditions a submission must meet to be sent here (docs/api.md, "Conditions"); null: every one. */
    when: text("when"),
  },
  (t) => [index("webhooks_form").on(t.formId, t.createdAt)],
);

/** A form's destinations: a kept submission is sent to each (a row in a sheet, a record, a message), through the webhooks' outbox. */
export const destinations = sqliteTable(
  "destinations",
  {
    id: text("id").primaryKey(),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    /** google_sheets | airtable | notion | mailchimp | telegram | teams | ntfy */
    type: text("type").notNull(),
    /** JSON of the type's settings, secrets included: the server sends with them, so they are kept; never listed, never logged. */
    config: text("config").notNull(),
    /** JSON {formField: destinationName}; null: every field under its own name. */
    fields: text("fields"),
    /** JSON of the conditions, as on webhooks. */
    when: text("when"),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    createdAt: millis("created_at"),
    failureStreak: integer("failure_streak").notNull().default(0),
    circuitOpenUntil: integer("circuit_open_until"),
  },
  (t) => [index("destinations_form").on(t.formId, t.createdAt)],
);

/** The webhook outbox: one row per event and endpoint, written with the submission, kept as the delivery log. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: text("id").primaryKey(),
    /** The webhook endpoint, or (webhookId null) the destination, it goes to. */
    webhookId: text("webhook_id").references(() => webhooks.id, { onDelete: "cascade" }),
    destinationId: text("destination_id").references(() => destinations.id, { onDelete: "cascade" }),
    formId: text("form_id")
      .notNull()
      .references(() => forms.id, { onDelete: "cascade" }),
    submissionId: text("submission_id")
      .notNull()
      .references(() => submissions.id, { onDelete: "cascade" }),
    /** webhook-id: msg_…, the same on every attempt of this event. */
    messageId: text("message_id").notNull(),
    eventType: text("event_type").notNull(),
    /** The body exactly as sent, so that every attempt carries the same bytes. */
    payload: text("payload").notNull(),
    /** pending | succeeded | failed (its schedule ended) */
    status: text("status").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: integer("next_attempt_at"),
    /** The server process that holds this delivery, until claimed_until: no other sends it meanwhile. */
    claimedBy: text("claimed_by"),
    claimedUntil: integer("claimed_until"),
    /** What the last attempt got: HTTP status (null when none came), milliseconds, the start of the answer or the error. */
    responseStatus: integer("response_status"),
    durationMs: integer("duration_ms"),
    responseSnippet: text("response_snippet"),
    lastError: text("last_error"),
    lastAttemptAt: integer("last_attempt_at"),
    deliveredAt: integer("delivered_at"),
    createdAt: millis("created_at"),
  },
  (t) => [
    index("webhook_deliveries_webhook").on(t.webhookId, t.createdAt, t.id),
    index("webhook_deliveries_destination").on(t.destinationId, t.createdAt, t.id),
    index("webhook_deliveries_form").on(t.formId, t.createdAt, t.id),
    index("webhook_deliveries_submission").on(t.submissionId),
    index("webhook_deliveries_due").on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
  ],
);

export type NotificationRow = typeof notifications.$inferSelect;
export type WebhookRow = typeof webhooks.$inferSelect;
export type DestinationRow = typeof destinations.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
