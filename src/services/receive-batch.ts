import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db, Store, WriteStatement } from "../db/client.ts";
import { files, forms, notifications, submissionDays, submissions, type FormRow, type SubmissionRow } from "../db/schema.ts";
import { DAY_MS, type SpamReason, type Submission } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { attachFiles } from "./files.ts";
import { notificationRowFor, type NotificationRequest, type NotificationsService } from "./notifications.ts";
import type { WebhooksService } from "./webhooks.ts";
import { awaitsOptIn, confirmationOf, confirmationStatement, type OptInLinks } from "./confirmations.ts";

/** What the public write needs to know of its form: read before (the route's own look-up), not in the write. */
export type ReceivingForm = Pick<FormRow, "id" | "name" | "slug" | "mode" | "notificationEmail" | "confirmation"> & { lastSubmissionAt?: number };

/** A submission to write in one batch, its createdAt chosen by the caller. */
export interface Received {
  form: ReceivingForm;
  data: Record<string, unknown>;
  isSpam: boolean;
  spamReason: string | null;
  notification: NotificationRequest;
  createdAt: number;
}

/** The statements of one public write, and how to read what they did. */
export interface ReceiveBatch {
  row: SubmissionRow;
  statements: (db: Db) => WriteStatement[];
  /** From the batch's results: stored, or the form's newest createdAt that stood in the way (null: no form). */
  outcome(results: unknown[]): { stored: true; queued: boolean; events: boolean } | { stored: false; last: number | null };
}

/** `INSERT … SELECT <row> WHERE <the submission was written>`: a row that follows its submission, or nothing. */
function insertIfStored(db: Db, table: SQLiteTable, row: Record<string, unknown>, submissionId: string) {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => row[key] !== undefined);
  const names = sql.join(
    columns.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const values = sql.join(
    columns.map(([key, column]) => sql.param(row[key], column)),
    sql`, `,
  );
  return db.run(sql`INSERT INTO ${table} (${names}) SELECT ${values} WHERE EXISTS (SELECT 1 FROM ${submissions} WHERE id = ${submissionId})`);
}

/**
 * The public write as statements known up front, for a database where each request is a round trip (libSQL):
 * one batch, so one request. The submission is written only while its createdAt is still later than the form's
 * newest (another process may have stored one meanwhile); every other statement (counters, day counters,
 * field list, files, notification, webhook deliveries) writes only when the submission was written. So a batch
 * that lost the race writes nothing, and says which createdAt to go past on the next try.
 */
export function receiveBatch(
  input: Received,
  queueEvents: ((db: Db, row: SubmissionRow) => WriteStatement) | null,
  optInLink: ((submissionId: string, expiresAt: number) => string) | null = null,
): ReceiveBatch {
  const { form, createdAt: now } = input;
  const attached = attachFiles(input.data, now);
  const row: SubmissionRow = {
    id: newId("submission", now),
    formId: form.id,
    data: JSON.stringify(attached.data),
    createdAt: now,
    isRead: false,
    isStarred: false,
    isSpam: input.isSpam,
    spamReason: input.spamReason,
    unconfirmed: awaitsOptIn(form, input.isSpam),
    confirmedAt: null,
    confirmedFrom: null,
  };
  // Spam and a submission awaiting its double opt-in count nowhere and tell nobody (see counterShare).
  const kept = input.isSpam || row.unconfirmed ? 0 : 1;
  const spam = input.isSpam ? 1 : 0;
  const names = JSON.stringify(Object.keys(input.data));
  const stored = sql`EXISTS (SELECT 1 FROM ${submissions} WHERE id = ${row.id})`;
  // The form's field list gains the names it did not have, in order, whatever another process added meanwhile.
  const newNames = sql`SELECT value FROM json_each(${names}) WHERE value NOT IN (SELECT value FROM json_each(${forms.fields}))`;
  const fields: SQL = sql`CASE WHEN EXISTS (${newNames}) THEN (SELECT json_group_array(value) FROM (
      SELECT 0 AS part, key AS pos, value FROM json_each(${forms.fields})
      UNION ALL SELECT 1, key, value FROM json_each(${names}) WHERE value NOT IN (SELECT value FROM json_each(${forms.fields}))
      ORDER BY part, pos)) ELSE ${forms.fields} END`;
  const notification = kept === 0 ? null : notificationRowFor(form, row, input.notification);

  return {
    row,
    statements: (db) => [
      db.all<{ last: number }>(sql`SELECT last_submission_at AS last FROM ${forms} WHERE id = ${form.id}`),
      db.all<{ id: string }>(sql`
        INSERT INTO ${submissions} (id, form_id, data, created_at, is_read, is_starred, is_spam, spam_reason, unconfirmed)
        SELECT ${row.id}, ${form.id}, ${row.data}, ${now}, 0, 0, ${spam}, ${row.spamReason}, ${row.unconfirmed ? 1 : 0}
        FROM ${forms} WHERE id = ${form.id} AND last_submission_at < ${now}
        RETURNING id`),
      ...attached.files.map((file) => insertIfStored(db, files, { ...file, submissionId: row.id, formId: form.id }, row.id)),
      db.run(sql`
        UPDATE ${forms} SET submission_count = submission_count + ${kept}, spam_count = spam_count + ${spam},
          unread_count = unread_count + ${kept}, last_submission_at = ${now}, fields = ${fields}
        WHERE id = ${form.id} AND ${stored}`),
      db.run(sql`
        INSERT INTO ${submissionDays} (form_id, day, submission_count, spam_count, unread_count, starred_count)
        SELECT ${form.id}, ${Math.floor(now / DAY_MS)}, ${kept}, ${spam}, ${kept}, 0 WHERE ${stored}
        ON CONFLICT (form_id, day) DO UPDATE SET submission_count = submission_count + excluded.submission_count,
          spam_count = spam_count + excluded.spam_count, unread_count = unread_count + excluded.unread_count`),
      ...(notification ? [insertIfStored(db, notifications, notification, row.id)] : []),
      ...[confirmationStatement(db, form, row, input.data, optInLink)].filter((statement) => statement !== null),
      ...(queueEvents && kept === 1 ? [queueEvents(db, row)] : []),
    ],
    outcome(results) {
      const [current, inserted] = results as [{ last: number }[], { id: string }[]];
      if (inserted.length === 0) return { stored: false, last: current[0]?.last ?? null };
      const events = queueEvents !== null && kept === 1 && (results[results.length - 1] as unknown[]).length > 0;
      // A confirmation may wait in the outbox too: waking the sender for nothing costs one look.
      return { stored: true, queued: notification?.status === "pending" || confirmationOf(form)?.enabled === true, events };
    },
  };
}

/**
 * The public write on libSQL: one batch, so one request to the server (see receiveBatch). Tried again, past the
 * form's newest createdAt, when another process stored a submission of the form at that time or later.
 */
export function oneRequestReceiver(
  store: Store,
  deps: {
    readForm(formId: string): Promise<(ReceivingForm & { lastSubmissionAt: number }) | undefined>;
    toSubmission(row: SubmissionRow): Submission;
    notifications: NotificationsService;
    webhooks?: WebhooksService;
    optIn?: OptInLinks;
  },
) {
  // The newest createdAt this process gave each form, so that its own submissions never wait on each other.
  const lastCreated = new Map<string, number>();
  const { toSubmission, webhooks } = deps;

  return async (
    formRef: string | ReceivingForm,
    data: Record<string, unknown>,
    flags: { isSpam: boolean; spamReason?: SpamReason; notification?: NotificationRequest },
  ): Promise<Submission> => {
    const form = typeof formRef === "string" ? await deps.readForm(formRef) : formRef;
    if (!form) throw new ApiError("form_not_found", "This form no longer exists.");
    if (lastCreated.size >= 10_000) lastCreated.clear();
    const queueEvents = webhooks ? (db: Db, row: SubmissionRow) => webhooks.queueStatement(db, form, toSubmission(row), row.createdAt) : null;
    let last = Math.max(lastCreated.get(form.id) ?? 0, form.lastSubmissionAt ?? 0);
    for (let attempt = 0; attempt < 50; attempt++) {
      // Past what this process has handed out meanwhile too: the map only ever grows, or the posts waiting in the
      // same batch would take each other's times and all lose.
      const createdAt = Math.max(Date.now(), last + 1, (lastCreated.get(form.id) ?? 0) + 1);
      lastCreated.set(form.id, createdAt);
      const spamReason = flags.isSpam ? (flags.spamReason ?? "honeypot") : null;
      const batch = receiveBatch(
        { form, data, isSpam: flags.isSpam, spamReason, notification: flags.notification ?? {}, createdAt },
        queueEvents,
        deps.optIn ? deps.optIn.link : null,
      );
      const outcome = batch.outcome(await store.batch(batch.statements));
      if (outcome.stored) {
        if (outcome.queued) deps.notifications.announce();
        if (outcome.events) webhooks?.announce();
        return toSubmission(batch.row);
      }
      if (outcome.last === null) throw new ApiError("form_not_found", "This form no longer exists.");
      last = Math.max(createdAt, outcome.last);
    }
    throw new Error(`could not store a submission of form ${form.id}: other processes kept storing later ones`);
  };
}
