import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { forms, notifications, submissions, type FormRow, type NotificationRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { notificationReplyTo, notificationSubject, notificationText } from "../../lib/mail.ts";
import { iso } from "../../lib/time.ts";
import type { FormsService } from "../forms.ts";
import { outboxLeases } from "./leases.ts";
import { mailShare } from "./shares.ts";
import type { Principal } from "../../domain/types.ts";

export type NotificationStatus = "pending" | "sent" | "failed" | "recorded" | "refused";

/** A notification email as the API shows it. */
export interface Notification {
  id: string;
  /** notification: to the owner; confirmation: to the person who submitted (docs/api.md, "Confirmation email and double opt-in"). */
  kind: "notification" | "confirmation";
  submissionId: string;
  to: string;
  subject: string;
  replyTo: string | null;
  status: NotificationStatus;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  nextAttemptAt: string | null;
  /** Why a confirmation was refused (spam, invalid_address, per_address_limit, per_form_daily_limit); null otherwise. */
  reason: string | null;
}

export interface NotificationPage {
  notifications: Notification[];
  pagination: { limit: number; offset: number; hasMore: boolean };
}

/** A notification that is due, with its message ready to send. */
export interface OutgoingNotification {
  id: string;
  accountId: string;
  to: string;
  /** Copied, from the post's `_cc`. */
  cc: string[];
  subject: string;
  replyTo: string | null;
  attempts: number;
  text: string;
  /** The sender name the form's owner chose for a confirmation; null: the server's own. */
  fromName: string | null;
  kind: Notification["kind"];
}

/** Delays before the 2nd, 3rd, ... attempt, in units of the retry base (a minute by default): 1 min, 5 min, 30 min, 2 h, 6 h. */
export const RETRY_STEPS = [1, 5, 30, 120, 360] as const;

const MAX_ERROR = 500;

const toNotification = (row: NotificationRow): Notification => ({
  id: row.id,
  kind: row.kind as Notification["kind"],
  submissionId: row.submissionId,
  to: row.to,
  subject: row.subject,
  replyTo: row.replyTo,
  status: row.status as NotificationStatus,
  attempts: row.attempts,
  lastError: row.lastError,
  createdAt: iso(row.createdAt),
  sentAt: row.sentAt === null ? null : iso(row.sentAt),
  nextAttemptAt: row.nextAttemptAt === null ? null : iso(row.nextAttemptAt),
  reason: row.reason,
});

// A literal (not a bound parameter), so that SQLite can match it to the partial index notifications_due.
const PENDING = sql`${notifications.status} = 'pending'`;

/** What `_subject` and `_replyto` asked for: untrusted, checked here. */
export interface NotificationRequest {
  subject?: unknown;
  replyTo?: unknown;
  /** Checked addresses to copy (`_cc`). */
  cc?: string[];
}

type NotifiedForm = Pick<FormRow, "id" | "name" | "mode">;

/**
 * The notification row of a submission just stored, to `to` (see Routing in services/submissions/keep.ts), or
 * null when it goes to nobody; a test form's is `recorded`, never sent. Pure: the caller writes it in the
 * submission's own transaction.
 */
export function notificationRowFor(
  form: NotifiedForm,
  submission: { id: string; createdAt: number },
  request: NotificationRequest,
  to: string | null,
): NotificationRow | null {
  if (!to) return null;
  const live = form.mode === "live";
  return {
    id: newId("notification", submission.createdAt),
    formId: form.id,
    submissionId: submission.id,
    to,
    subject: notificationSubject(request.subject, form.name),
    replyTo: notificationReplyTo(request.replyTo),
    cc: request.cc?.length ? request.cc.join(", ") : null,
    status: live ? "pending" : "recorded",
    attempts: 0,
    lastError: null,
    createdAt: submission.createdAt,
    sentAt: null,
    nextAttemptAt: live ? submission.createdAt : null,
    claimedBy: null,
    claimedUntil: null,
    kind: "notification",
    reason: null,
    body: null,
    fromName: null,
  };
}

/** Notifications: the outbox written with each submission, read by the sender and listed for the owner. */
/**
 * `dashboardUrl` is the server's public base URL when it knows one (`--base-url`), so that each email links to
 * its submission's page; null leaves the link out (a derived localhost address would mislead the reader).
 */
export function notificationsService(store: Store, formsService: FormsService, dashboardUrl: () => string | null = () => null) {
  const listeners = new Set<() => void>();
  const announce = () => {
    for (const listener of listeners) listener();
  };
  const leases = outboxLeases(
    store,
    {
      table: notifications,
      id: notifications.id,
      status: notifications.status,
      nextAttemptAt: notifications.nextAttemptAt,
      claimedBy: notifications.claimedBy,
      claimedUntil: notifications.claimedUntil,
      submissionId: notifications.submissionId,
      formId: notifications.formId,
    },
    mailShare,
  );

  return {
    /** Tells the sender that a committed write queued a notification. */
    announce,

    /** Calls `listener` after each commit that queued a notification; returns the way to stop. */
    onQueued(listener: () => void): () => void {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    /** One page of a form's notifications, newest first. */
    async list(principal: Principal, formRef: string, page: { limit: number; offset: number }): Promise<NotificationPage> {
      const form = await formsService.findRow(principal, formRef);
      const rows = await store.db
        .select()
        .from(notifications)
        .where(eq(notifications.formId, form.id))
        .orderBy(desc(notifications.createdAt), desc(notifications.id))
        .limit(page.limit + 1)
        .offset(page.offset);
      return {
        notifications: rows.slice(0, page.limit).map(toNotification),
        pagination: { limit: page.limit, offset: page.offset, hasMore: rows.length > page.limit },
      };
    },

    /**
     * Claims up to `limit` due notifications for `worker` until `now + leaseMs` (see outboxLeases: several server
     * processes on one database never send the same one), with their messages built, soonest due first.
     */
    async claimDue(worker: string, now: number, leaseMs: number, limit: number): Promise<OutgoingNotification[]> {
      const ids = await leases.claim(worker, now, leaseMs, limit);
      if (ids.length === 0) return [];
      const rows = await store.db
        .select({
          id: notifications.id,
          to: notifications.to,
          subject: notifications.subject,
          replyTo: notifications.replyTo,
          cc: notifications.cc,
          attempts: notifications.attempts,
          body: notifications.body,
          fromName: notifications.fromName,
          kind: notifications.kind,
          submissionId: submissions.id,
          data: submissions.data,
          createdAt: submissions.createdAt,
          formName: forms.name,
          formSlug: forms.slug,
          accountId: forms.accountId,
          formId: forms.id,
        })
        .from(notifications)
        .innerJoin(submissions, eq(submissions.id, notifications.submissionId))
        .innerJoin(forms, eq(forms.id, notifications.formId))
        .where(inArray(notifications.id, ids));
      const byId = new Map(rows.map((row) => [row.id, row]));
      const base = dashboardUrl();
      return ids.flatMap((id) => {
        const row = byId.get(id);
        if (!row) return []; // deleted (with its submission) between the claim and this read
        return [
          {
            id: row.id,
            accountId: row.accountId,
            to: row.to,
            subject: row.subject,
            replyTo: row.replyTo,
            cc: row.cc ? row.cc.split(", ") : [],
            attempts: row.attempts,
            fromName: row.fromName,
            kind: row.kind as Notification["kind"],
            // A confirmation's text was rendered when it was queued; a notification's is built now.
            text:
              row.body ??
              notificationText({
                formName: row.formName,
                formSlug: row.formSlug,
                submissionId: row.submissionId,
                receivedAt: iso(row.createdAt),
                data: JSON.parse(row.data) as Record<string, unknown>,
                link: base ? `${base}/dashboard/forms/${row.formId}/submissions/${row.submissionId}` : null,
              }),
          },
        ];
      });
    },

    /** When the next pending notification is due (ms), or null when none is pending. */
    nextDueAt: leases.nextDueAt,

    /** Lets go of every claim of `worker` (at a clean stop), so that a restart or another process sends them at once. */
    release: leases.release,

    /** Extends the leases `worker` holds while it sends them. */
    extend: leases.extend,

    /**
     * Records that `worker` sent the notification it holds, with `note` in lastError when part of it was left out
     * (a copy or the Reply-To the mail server could not take); a claim it lost meanwhile records nothing.
     */
    async markSent(notification: OutgoingNotification, worker: string, now: number, note: string | null = null): Promise<void> {
      await store.batch((db) => [
        db
          .update(notifications)
          .set({ status: "sent", sentAt: now, attempts: notification.attempts + 1, lastError: note, nextAttemptAt: null, ...leases.released })
          .where(leases.heldBy(notification.id, worker)),
      ]);
    },

    /**
     * Records that the notification cannot be sent as it is (an address the mail server cannot take): failed at
     * once, `reason` in lastError, never tried again unless the owner retries it (after mending the settings).
     */
    async markRefused(notification: OutgoingNotification, worker: string, reason: string): Promise<void> {
      await store.batch((db) => [
        db
          .update(notifications)
          .set({ status: "failed", attempts: notification.attempts + 1, lastError: reason.slice(0, MAX_ERROR), nextAttemptAt: null, ...leases.released })
          .where(leases.heldBy(notification.id, worker)),
      ]);
    },

    /**
     * Puts a form's failed notifications back in the queue, to be tried at once with a fresh backoff (after
     * the mail settings are mended, say); with `pending`, also makes every pending one due now rather than at
     * its next retry time. Returns how many are now due; the sender is told when it runs in this process.
     */
    async retryFailed(principal: Principal, formRef: string, now: number, options: { pending?: boolean } = {}): Promise<number> {
      const form = await formsService.findRow(principal, formRef);
      const retried = await store.write(async (tx) => {
        const rows = await tx
          .update(notifications)
          .set({ status: "pending", attempts: 0, nextAttemptAt: now, ...leases.released })
          .where(and(eq(notifications.formId, form.id), eq(notifications.status, "failed")))
          .returning({ id: notifications.id });
        if (!options.pending) return rows.length;
        // With `pending`, those waiting for their next attempt (or for mail to be set up) are due now too.
        await tx
          .update(notifications)
          .set({ nextAttemptAt: now })
          .where(and(eq(notifications.formId, form.id), PENDING, sql`${notifications.nextAttemptAt} > ${now}`));
        const [due] = await tx
          .select({ n: sql<number>`count(*)` })
          .from(notifications)
          .where(and(eq(notifications.formId, form.id), PENDING));
        return Number(due?.n ?? 0);
      });
      if (retried > 0) announce();
      return retried;
    },

    /**
     * Sends one of the form's notifications again now, whatever became of it (failed, or sent and lost, or
     * still waiting on its backoff); a test form's recorded notification stays recorded, as it is never sent.
     */
    async retryOne(principal: Principal, formRef: string, id: string, now: number): Promise<Notification> {
      const form = await formsService.findRow(principal, formRef);
      const row = await store.write(async (tx) => {
        const [found] = await tx
          .select()
          .from(notifications)
          .where(and(eq(notifications.formId, form.id), eq(notifications.id, id)));
        if (!found) throw new ApiError("not_found", `No notification ${id} in this form.`);
        if (found.status === "recorded") throw new ApiError("invalid_parameter", "A test form's notifications are recorded, never sent.", { field: "id" });
        // A refusal stands: sending it anyway is what the limits are there to prevent.
        if (found.status === "refused")
          throw new ApiError("invalid_parameter", `This confirmation was refused (${found.reason}) and is never sent.`, { field: "id" });
        const [updated] = await tx
          .update(notifications)
          .set({ status: "pending", attempts: 0, nextAttemptAt: now, ...leases.released })
          .where(eq(notifications.id, id))
          .returning();
        return updated!;
      });
      announce();
      return toNotification(row);
    },

    /** How many notifications wait in the outbox, by status (pending and failed), for /metrics. */
    async outboxDepth(): Promise<Record<string, number>> {
      const rows = await store.db
        .select({ status: notifications.status, n: sql<number>`count(*)` })
        .from(notifications)
        .where(sql`${notifications.status} IN ('pending', 'failed')`)
        .groupBy(notifications.status);
      return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)]));
    },

    /** Confirmation emails by status, and the refused ones by reason as `refused:<reason>`, for /metrics. */
    async confirmationCounts(): Promise<Record<string, number>> {
      const rows: { status: string; reason: string | null; n: number }[] = await store.db.all(
        sql`SELECT status, reason, count(*) AS n FROM ${notifications} WHERE kind = 'confirmation' GROUP BY status, reason`,
      );
      const counts: Record<string, number> = {};
      for (const row of rows) {
        counts[row.status] = (counts[row.status] ?? 0) + Number(row.n);
        if (row.reason) counts[`refused:${row.reason}`] = Number(row.n);
      }
      return counts;
    },

    /** Counts a failed attempt by `worker`: tried again after the next step of the backoff, or `failed` after the last. */
    async markAttemptFailed(
      notification: OutgoingNotification,
      worker: string,
      error: string,
      now: number,
      retryBaseMs: number,
      permanent = false,
    ): Promise<NotificationStatus> {
      const attempts = notification.attempts + 1;
      // A permanent refusal (a 5xx answer) would be given again: failed at once, no retry.
      const step = permanent ? undefined : RETRY_STEPS[attempts - 1];
      const status: NotificationStatus = step === undefined ? "failed" : "pending";
      await store.batch((db) => [
        db
          .update(notifications)
          .set({
            status,
            attempts,
            lastError: error.slice(0, MAX_ERROR),
            nextAttemptAt: step === undefined ? null : now + step * retryBaseMs,
            ...leases.released,
          })
          .where(leases.heldBy(notification.id, worker)),
      ]);
      return status;
    },
  };
}

export type NotificationsService = ReturnType<typeof notificationsService>;
