// The one write of a submission, on both drivers: its statements are defined once, here, at load (SQL text
// with placeholders); on a SQLite file they run in the writer's transaction as statements prepared once per
// connection, on libSQL they go as one batch, one request. Every statement after the submission's own insert
// writes only when that insert did, so a write that lost a race to another process writes nothing at all.
import type { Store, WriteStatement } from "../../db/client.ts";
import { files, forms, idempotencyKeys, submissions, type SubmissionRow } from "../../db/schema.ts";
import { bound, insertIfStored, whenStored, type Bound, type StatementMaker, type Step } from "../../db/statement.ts";
import { DAY_MS, type SpamReason } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { attachFiles } from "../files.ts";
import { awaitsOptIn } from "../outbox/confirmations.ts";
import type { NotificationRequest } from "../outbox/notifications.ts";
import { growFieldList } from "./field-list.ts";
import { keepStatements, type Change, type KeepDeps, type KeepingForm, type Queued, type Routing } from "./keep.ts";
import { sql } from "drizzle-orm";

/** How long a post's Idempotency-Key is kept: a repeat within this time gets the first answer again. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

/** A live record of the post's Idempotency-Key (none without a key: `key = NULL` matches nothing). */
const keyHeld: StatementMaker = (p) => sql`EXISTS (SELECT 1 FROM ${idempotencyKeys}
  WHERE form_id = ${p("formId")} AND key = ${p("idempotencyKey")} AND created_at > ${p("keysFrom")})`;

const STATEMENTS = {
  /**
   * The submission, only while its createdAt is later than the form's newest (another process may have stored
   * one) and no post with its Idempotency-Key was stored meanwhile (by another process, or the same one's twin).
   */
  insert: ((p) =>
    sql`
    INSERT INTO ${submissions} (id, form_id, data, created_at, is_read, is_starred, is_spam, spam_reason, spam_score, spam_tokens, data_hash, held,
      unconfirmed, unpaid, payment_status, payment_amount, payment_currency)
    SELECT ${p("id")}, ${p("formId")}, ${p("data")}, ${p("createdAt")}, 0, 0,
      ${p("isSpam")}, ${p("spamReason")}, ${p("spamScore")}, ${p("spamTokens")},
      ${p("dataHash")}, ${p("held")}, ${p("unconfirmed")}, ${p("unpaid")}, ${p("paymentStatus")}, ${p("paymentAmount")}, ${p("paymentCurrency")}
    FROM ${forms} WHERE id = ${p("formId")} AND last_submission_at < ${p("createdAt")} AND NOT ${keyHeld(p)}
    RETURNING id`) as StatementMaker,
  /** The post's Idempotency-Key, taking the place of an expired record of the same key that the purger has not reached. */
  idempotencyKey: ((p) =>
    sql`
    INSERT INTO ${idempotencyKeys} (form_id, key, fingerprint, submission_id, location, redirected, created_at)
    SELECT ${p("formId")}, ${p("idempotencyKey")}, ${p("fingerprint")}, ${p("submissionId")},
      ${p("location")}, ${p("redirected")}, ${p("createdAt")}
    WHERE ${whenStored(p)}
    ON CONFLICT (form_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, submission_id = excluded.submission_id,
      location = excluded.location, redirected = excluded.redirected, created_at = excluded.created_at`) as StatementMaker,
  file: insertIfStored(files),
};

/** What the write needs of its form: the route's own look-up, read before the write. */
export type ReceivingForm = KeepingForm & { lastSubmissionAt?: number };

/** The Idempotency-Key of a post, written with its submission: what a repeat is answered with. */
export interface IdempotencyRequest {
  key: string;
  /** Of the post's fields as read (see fingerprintOf in idempotency.ts). */
  fingerprint: string;
  location: string;
  redirected: boolean;
}

/** How a post is to be stored: spam or not and why, the filter's score, what its notification asked for. */
export interface ReceiveFlags {
  isSpam: boolean;
  /** Why it is spam; a spam verdict with no reason given is the honeypot's, the first kind of spam there was. */
  spamReason?: SpamReason;
  spamScore?: number | null;
  spamTokens?: string[] | null;
  /** The data's hash, which the duplicate rule looks for: made only while the form's rule is on. */
  dataHash?: string | null;
  notification?: NotificationRequest;
  /** The post's Idempotency-Key, when it sent one. */
  idempotency?: IdempotencyRequest;
  /** The visitor's language (a catalog's code): the confirmation email's own words are in it. */
  language?: string;
  /** What the post pays (docs/api.md, "Payments"): unless it is spam, it is stored awaiting that payment, not kept. */
  payment?: { amount: number; currency: string } | null;
}

/** One submission to write, its createdAt chosen by the caller. */
export interface Received {
  form: ReceivingForm;
  data: Record<string, unknown>;
  flags: ReceiveFlags;
  /** Where it goes once kept, decided before the write (see routingOf). */
  routing: Routing;
  createdAt: number;
}

/** Thrown when a post's Idempotency-Key was stored by another post while this one was being read: answer as that one. */
export class IdempotencyKeyTaken extends Error {}

/**
 * The spam columns of a new submission: its reason, score and tokens, the hash the duplicate rule looks for (when on),
 * and (when it is spam, or awaits its double opt-in) what its notification asked for, held back until the owner
 * says it is not spam or the link is opened.
 */
function spamColumns(flags: ReceiveFlags, awaiting: boolean) {
  const request = flags.notification ?? {};
  return {
    spamReason: flags.isSpam ? (flags.spamReason ?? "honeypot") : null,
    spamScore: flags.spamScore ?? null,
    spamTokens: flags.spamTokens ? JSON.stringify(flags.spamTokens) : null,
    dataHash: flags.dataHash ?? null,
    held: flags.isSpam || awaiting ? JSON.stringify({ subject: request.subject, replyTo: request.replyTo, cc: request.cc }) : null,
    trained: null,
  };
}

/** The payment columns of a new submission: awaiting `charge`, or none. */
const paymentColumns = (charge: { amount: number; currency: string } | null) => ({
  unpaid: charge !== null,
  paymentStatus: charge ? "awaiting" : null,
  paymentAmount: charge?.amount ?? null,
  paymentCurrency: charge?.currency ?? null,
  paymentSession: null,
  paymentIntent: null,
  paymentUrl: null,
  paymentCheckedAt: null,
});

/** The write of one submission: its row, its own statements, and its change for keep. */
export interface SubmissionWrite {
  row: SubmissionRow;
  /** The row's values as the statements take them. */
  values: Record<string, unknown>;
  /** Its files, and its Idempotency-Key when it has one: each written only once the submission was. */
  extras: Step[];
  change: Change;
}

/**
 * The write of one submission: the submission, its files, the field list and its Idempotency-Key; what it counts
 * and sends is keep's (its `change`), in the same write.
 */
export function submissionWrite(input: Received): SubmissionWrite {
  const { form, createdAt } = input;
  const attached = attachFiles(input.data, createdAt);
  const { isSpam } = input.flags;
  const unconfirmed = awaitsOptIn(form, isSpam);
  // Spam is asked for no payment: it is stored as any spam.
  const charge = isSpam ? null : (input.flags.payment ?? null);
  const row: SubmissionRow = {
    id: newId("submission", createdAt),
    formId: form.id,
    data: JSON.stringify(attached.data),
    createdAt,
    isRead: false,
    isStarred: false,
    isSpam,
    ...spamColumns(input.flags, unconfirmed || charge !== null),
    unconfirmed,
    confirmedAt: null,
    confirmedFrom: null,
    ...paymentColumns(charge),
  };
  const values = {
    ...row,
    submissionId: row.id,
    isSpam: isSpam ? 1 : 0,
    unconfirmed: row.unconfirmed ? 1 : 0,
    unpaid: row.unpaid ? 1 : 0,
    names: JSON.stringify(Object.keys(input.data)),
    idempotencyKey: input.flags.idempotency?.key ?? null,
    keysFrom: createdAt - IDEMPOTENCY_WINDOW_MS,
  };
  const extras: Step[] = [
    ...attached.files.map((file) => ({ make: STATEMENTS.file, values: { ...file, submissionId: row.id, formId: form.id } })),
    ...(input.flags.idempotency
      ? [{ make: STATEMENTS.idempotencyKey, values: { ...values, ...input.flags.idempotency, redirected: input.flags.idempotency.redirected ? 1 : 0 } }]
      : []),
  ];
  const change: Change = {
    form,
    before: null,
    after: row,
    posted: { data: input.data, request: input.flags.notification ?? {}, language: input.flags.language },
    at: createdAt,
    routing: input.routing,
  };
  return { row, values, extras, change };
}

/** A single submission's own statements, each writing only when its guarded insert did: the submission first. */
export const ownSteps = (write: SubmissionWrite): Step[] => [
  { make: STATEMENTS.insert, values: write.values },
  { make: growFieldList, values: write.values },
  ...write.extras,
];

/** A bound statement as the libSQL batch takes drizzle's queries: its text and arguments, and its rows back. */
const batchItem = (statement: Bound) =>
  ({
    _prepare: () => ({ getQuery: () => ({ sql: statement.sql, params: statement.args }), mapResult: (result: { rows: unknown[] }) => result.rows }),
  }) as unknown as WriteStatement;

/** Runs a submission's write on libSQL as one batch (one request). Says whether it was written, and what keep queued. */
async function runWrite(store: Store, write: SubmissionWrite, deps: KeepDeps): Promise<{ stored: boolean; queued: Queued }> {
  const kept = keepStatements([write.change], deps);
  const statements = [...ownSteps(write), ...kept.steps, ...kept.deliveries].map((step) => batchItem(bound(step)));
  const results = (await store.batch(() => statements)) as unknown[][];
  const stored = results[0]!.length > 0;
  const deliveries = results.slice(results.length - kept.deliveries.length).some((rows) => rows.length > 0);
  return { stored, queued: { mail: stored && kept.mail, deliveries: stored && deliveries } };
}

/** The form's newest createdAt as committed (the reader's view), or null when the form is gone. */
async function newestOf(db: Store["db"], formId: string): Promise<number | null> {
  const rows: { last: number }[] = await db.all(sql`SELECT last_submission_at AS last FROM ${forms} WHERE id = ${formId}`);
  return rows[0]?.last ?? null;
}

/** True when a live record of this Idempotency-Key is committed (the reader's view). */
async function keyStored(db: Store["db"], formId: string, key: string, now: number): Promise<boolean> {
  const rows = await db.all(sql`SELECT 1 FROM ${idempotencyKeys} WHERE form_id = ${formId} AND key = ${key} AND created_at > ${now - IDEMPOTENCY_WINDOW_MS}`);
  return rows.length > 0;
}

/** What a stored submission's write did. */
export interface Written {
  row: SubmissionRow;
  /** What keep queued: the senders to wake once it is committed. */
  queued: Queued;
}

/**
 * Writes submissions on libSQL one post per batch (see submissionWrite), each past its form's newest createdAt: a
 * form's createdAt values are unique and rise in the order submissions are stored, so that a script polling with
 * since=<the last createdAt it saw> never misses one stored later in the same millisecond. A write that lost to
 * another process's (which stored a submission of the form at that time or later) is tried again past it.
 */
export function postWriter(store: Store, deps: KeepDeps) {
  // The newest createdAt this process gave each form, so that its own submissions never wait on each other.
  const lastCreated = new Map<string, number>();
  return async (input: Omit<Received, "createdAt">): Promise<Written> => {
    const { form } = input;
    if (lastCreated.size >= 10_000) lastCreated.clear();
    let last = Math.max(lastCreated.get(form.id) ?? 0, form.lastSubmissionAt ?? 0);
    for (let attempt = 0; attempt < 50; attempt++) {
      // Past what this process has handed out meanwhile too: the map only ever grows, or the posts waiting in the
      // same batch would take each other's times and all lose.
      const createdAt = Math.max(Date.now(), last + 1, (lastCreated.get(form.id) ?? 0) + 1);
      lastCreated.set(form.id, createdAt);
      const write = submissionWrite({ ...input, createdAt });
      const outcome = await runWrite(store, write, deps);
      if (outcome.stored) return { row: write.row, queued: outcome.queued };
      if (input.flags.idempotency && (await keyStored(store.db, form.id, input.flags.idempotency.key, createdAt))) throw new IdempotencyKeyTaken();
      const newest = await newestOf(store.db, form.id);
      if (newest === null) throw new ApiError("form_not_found", "This form no longer exists.");
      last = Math.max(createdAt, newest);
    }
    throw new Error(`could not store a submission of form ${form.id}: other processes kept storing later ones`);
  };
}
