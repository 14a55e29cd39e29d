// The one way a submission becomes kept (neither spam nor waiting for its double opt-in link; see isKept): a new
// post, one the owner moves out of spam, one whose opt-in link is opened. Each goes through here, in the write that
// changes it, and here alone is written what that sends: the owner's notification, the confirmation email to the
// person who submitted, a delivery per webhook endpoint and destination (docs/api.md, "Notifications", "Confirmation
// email and double opt-in", "Webhooks", "Destinations"), and the counters. What a kept submission sends is sent once: a stored submission
// sends it only while its `held` column says it was held back.
import type { Db } from "../../db/client.ts";
import { notifications, type FormRow, type NotificationRow, type SubmissionRow } from "../../db/schema.ts";
import { insertIfStored, insertRows, runStep, type Step } from "../../db/statement.ts";
import type { Submission } from "../../domain/types.ts";
import { type Facts, factsOf, notificationTo } from "../outbox/conditions.ts";
import { confirmationInsert, confirmationValues, type OptInLinks } from "../outbox/confirmations.ts";
import { notificationRowFor, type NotificationRequest } from "../outbox/notifications.ts";
import { isKept, moveShare, receivedCounters, receivedCountersOf } from "./counters.ts";
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
  /** Where it goes once kept, decided before the write for a new post (see routingOf); else decided in the write. */
  routing?: Routing;
}

/** Where a kept submission goes: its notification's address and the endpoints and destinations it is delivered to. */
export interface Routing {
  to: string | null;
  targets: string[];
}

/**
 * Where a submission with `data` goes once kept, by the form's notification routes and its endpoints' and
 * destinations' conditions (docs/api.md, "Conditions"): decided in code, once over the post's values, and for a new
 * post before its write, so that no post holds the write's lock for as long as its values take to compare.
 */
export async function routingOf(db: Db, form: KeepingForm, data: Record<string, unknown>, deps: KeepDeps): Promise<Routing> {
  const facts = factsOf(data);
  return {
    to: notificationTo(form.notificationRoutes ?? null, form.notificationEmail, facts),
    targets: deps.outbox ? await deps.outbox.targets(db, form.id, facts) : [],
  };
}

/** The deliveries' side of the outbox, as keep uses it. */
export interface Outbox {
  /** The endpoints and destinations whose conditions a submission (its facts) meets. */
  targets(db: Db, formId: string, facts: Facts): Promise<string[]>;
  /** The statements that queue a kept submission's deliveries to `targets`, each returning a row per delivery. */
  queueDeliveries(form: KeepingForm, submission: Submission, at: number, targets: string[]): Step[];
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

const NOTIFICATION = insertIfStored(notifications);

/** The rules: what one change writes, its deliveries apart (made only when asked: their bodies cost). */
function planOf(change: Change, routing: Routing, deps: KeepDeps) {
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
  const notification = sends ? notificationRowFor(form, { id: after.id, createdAt: at }, request, routing.to) : null;
  const deliveries = sends && deps.outbox && routing.targets.length > 0 ? deps.outbox : null;
  return {
    confirmation: confirmation ? { make: confirmationInsert, values: { ...confirmation } } : null,
    notification,
    mail: notification?.status === "pending" || confirmation !== null,
    deliveries: deliveries && (() => deliveries.queueDeliveries(form, toSubmission(after), at, routing.targets)),
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
  for (const change of changes) {
    const routing = change.routing ?? (await routingOf(tx, change.form, change.posted?.data ?? JSON.parse(change.after.data), deps));
    const plan = planOf(change, routing, deps);
    if (change.before) await moveShare(tx, change.before, change.after);
    else received.push(change.after);
    if (plan.confirmation) await runStep(tx, plan.confirmation);
    if (plan.notification) notified.push(plan.notification);
    queued.mail ||= plan.mail;
    if (plan.deliveries) for (const step of plan.deliveries()) if ((await runStep(tx, step)).length > 0) queued.deliveries = true;
  }
  for (const step of receivedCountersOf(received)) await runStep(tx, step);
  await insertRows(tx, notifications, notified as unknown as Record<string, unknown>[]);
  return queued;
}

/**
 * The same as keep for new posts, as statements of one batch (libSQL's write of a post: one request, nothing read
 * in between), each writing only when its submission was: the deliveries apart and last, so that their rows tell
 * whether any was written. `mail` says what is queued if the submissions were written.
 */
export function keepStatements(changes: Change[], deps: KeepDeps): { steps: Step[]; deliveries: Step[]; mail: boolean } {
  const steps: Step[] = [];
  const deliveries: Step[] = [];
  let mail = false;
  for (const change of changes) {
    if (change.before || !change.routing)
      throw new Error("keepStatements takes new posts only, routed before the write: a stored submission's change is kept in its transaction (keep)");
    const plan = planOf(change, change.routing, deps);
    steps.push(...receivedCounters(change.after));
    if (plan.confirmation) steps.push(plan.confirmation);
    if (plan.notification) steps.push({ make: NOTIFICATION, values: { ...plan.notification } });
    deliveries.push(...(plan.deliveries?.() ?? []));
    mail ||= plan.mail;
  }
  return { steps, deliveries, mail };
}

/** Wakes the senders of what a committed write of keep queued: never before the commit, or they could look too early. */
export function announce(deps: KeepDeps, queued: Queued): void {
  if (queued.mail) deps.notifications.announce();
  if (queued.deliveries) deps.outbox?.announce();
}
