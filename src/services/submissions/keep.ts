// The one way a submission becomes kept (neither spam nor waiting for its double opt-in link; see isKept): a new
// post, one the owner moves out of spam, one whose opt-in link is opened. Each goes through here, in the write that
// changes it, and here alone is written what that sends: the owner's notification, the confirmation email to the
// person who submitted, a delivery per webhook endpoint and destination (docs/api.md, "Notifications", "Confirmation
// email and double opt-in", "Webhooks", "Destinations"), and the counters. What a kept submission sends is sent once: a stored submission
// sends it only while its `held` column says it was held back.
import type { Db } from "../../db/client.ts";
import { notifications, type FormRow, type NotificationRow, type SubmissionRow } from "../../db/schema.ts";
import { runPlan, runStep, type Step } from "../../db/statement.ts";
import type { Submission } from "../../domain/types.ts";
import { confirmationInsert, confirmationValues, type OptInLinks } from "../outbox/confirmations.ts";
import { notificationRowFor, type NotificationRequest } from "../outbox/notifications.ts";
import { isKept, moveShare, receivedCountersOf } from "./counters.ts";
import { toSubmission } from "./shown.ts";

/** What keeping needs of a form. */
export type KeepingForm = Pick<FormRow, "id" | "name" | "slug" | "mode" | "notificationEmail" | "confirmation"> & Partial<Pick<FormRow, "notificationRoutes">>;

/** One submission's change, in the write that makes it. */
export interface Change {
  form: KeepingForm;
  /** The submission as that write read it before the change, or null for a new post. */
  before: SubmissionRow | null;
  /** The submission as the change leaves it. */
  after: SubmissionRow;
  /** A new post's fields as read (its files not stored yet), what it asked of its notification, and the visitor's language. */
  posted?: { data: Record<string, unknown>; request: NotificationRequest; language?: string };
  /** When what it sends is made: a new post's createdAt, else the time of the change. */
  at: number;
}

/** The deliveries' side of the outbox, as keep uses it. */
export interface Outbox {
  /** A statement that returns a row when the form has somewhere to deliver to: a write that can look first makes no bodies for none. */
  deliversTo(formId: string): Step;
  /** The statements that queue a kept submission's deliveries (one per webhook endpoint and destination whose conditions it meets), each returning a row per delivery. */
  queueDeliveries(form: KeepingForm, submission: Submission, at: number): Step[];
  /** Wakes this process's senders, after the commit. */
  announce(): void;
}

/** Where what keep writes goes next, and the double opt-in links a confirmation may carry. */
export interface KeepDeps {
  notifications: { announce(): void };
  outbox?: Outbox;
  optIn?: OptInLinks | null;
}

/** What a write of keep queued: whom to wake once it is committed (see announce). */
export interface Queued {
  /** A notification or a confirmation to send. */
  mail: boolean;
  /** A delivery. */
  deliveries: boolean;
}

/** The rules: what one change writes, its deliveries apart (made only when asked: their bodies cost). */
function planOf(change: Change, deps: KeepDeps) {
  const { form, before, after, at } = change;
  // What a stored submission's verdict held back is in its row; a new post's comes with it.
  const request = change.posted?.request ?? (before?.held ? (JSON.parse(before.held) as NotificationRequest) : {});
  const held = before === null || before.held !== null;
  // The confirmation goes with a new post (a refusal in the log when it is spam) and when one leaves spam,
  // unless its opt-in link was opened already: that one had its confirmation.
  const confirms = before === null || (before.isSpam && !after.isSpam && held && before.confirmedAt === null);
  const confirmation = confirms
    ? confirmationValues(
        form,
        { id: after.id, createdAt: at, isSpam: after.isSpam },
        change.posted?.data ?? JSON.parse(after.data),
        deps.optIn?.link ?? null,
        change.posted?.language,
      )
    : null;
  // The notification and the deliveries go when it becomes kept, if what it sends was never sent.
  const sends = isKept(after) && held && (before === null || !isKept(before));
  const notification = sends ? notificationRowFor(form, { id: after.id, createdAt: at, data: after.data }, request) : null;
  const deliveries = sends && deps.outbox ? deps.outbox : null;
  return {
    confirmation: confirmation ? { make: confirmationInsert, values: { ...confirmation } } : null,
    notification,
    mail: notification?.status === "pending" || confirmation !== null,
    deliveries: deliveries && { check: deliveries.deliversTo(form.id), make: () => deliveries.queueDeliveries(form, toSubmission(after), at) },
  };
}

/**
 * Writes, in the caller's transaction, what `changes` send and count: the counters (new posts' shares summed per
 * form and day, or the move from `before` to `after`), the confirmations, and, for each that becomes kept, its
 * notification (all of them in a few multi-row inserts) and deliveries (their endpoints looked up once per form).
 * The caller has written the submissions' rows; it calls announce after its commit.
 */
export async function keep(tx: Db, changes: Change[], deps: KeepDeps): Promise<Queued> {
  const queued: Queued = { mail: false, deliveries: false };
  const received: SubmissionRow[] = [];
  const notified: NotificationRow[] = [];
  const delivering = new Map<string, boolean>();
  for (const change of changes) {
    const plan = planOf(change, deps);
    if (change.before) await moveShare(tx, change.before, change.after);
    else received.push(change.after);
    if (plan.confirmation) await runStep(tx, plan.confirmation);
    if (plan.notification) notified.push(plan.notification);
    queued.mail ||= plan.mail;
    if (!plan.deliveries) continue;
    let endpoints = delivering.get(change.form.id);
    if (endpoints === undefined) {
      endpoints = (await runStep(tx, plan.deliveries.check)).length > 0;
      delivering.set(change.form.id, endpoints);
    }
    if (endpoints) for (const step of plan.deliveries.make()) if ((await runStep(tx, step)).length > 0) queued.deliveries = true;
  }
  await runPlan(tx, [...receivedCountersOf(received), { table: notifications, rows: notified as unknown as Record<string, unknown>[] }]);
  return queued;
}

/** Wakes the senders of what a committed write of keep queued: never before the commit, or they could look too early. */
export function announce(deps: KeepDeps, queued: Queued): void {
  if (queued.mail) deps.notifications.announce();
  if (queued.deliveries) deps.outbox?.announce();
}
