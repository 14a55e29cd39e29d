// The write of one new post, as its writer (writer.ts) puts it in a plan: its submission's row, its files' rows
// and its Idempotency-Key's record, and the change that keep (keep.ts) counts and sends. What is decided of the
// post (its createdAt, whether it is written at all) is the writer's, in the transaction that writes it.
import { sql } from "drizzle-orm";
import { idempotencyKeys, type SubmissionRow } from "../../db/schema.ts";
import type { Rows, StatementMaker, Step } from "../../db/statement.ts";
import { DAY_MS, type SpamReason } from "../../domain/types.ts";
import { newId } from "../../lib/ids.ts";
import { attachFiles } from "../files.ts";
import { awaitsOptIn } from "../outbox/confirmations.ts";
import type { NotificationRequest } from "../outbox/notifications.ts";
import type { Change, KeepingForm, Queued, Routing } from "./keep.ts";

/** How long a post's Idempotency-Key is kept: a repeat within this time gets the first answer again. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

/** The post's Idempotency-Key, taking the place of an expired record of the same key that the purger has not reached. */
const IDEMPOTENCY_KEY: StatementMaker = (p) =>
  sql`INSERT INTO ${idempotencyKeys} (form_id, key, fingerprint, submission_id, location, redirected, created_at)
    VALUES (${p("formId")}, ${p("key")}, ${p("fingerprint")}, ${p("submissionId")}, ${p("location")}, ${p("redirected")}, ${p("createdAt")})
    ON CONFLICT (form_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, submission_id = excluded.submission_id,
      location = excluded.location, redirected = excluded.redirected, created_at = excluded.created_at`;

/** What the write needs of its form: the route's own look-up, read before the write (its newest createdAt is read in the write). */
export type ReceivingForm = KeepingForm;

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
function spamColumns(flags: ReceiveFlags, awaitingOptIn: boolean) {
  const request = flags.notification ?? {};
  return {
    spamReason: flags.isSpam ? (flags.spamReason ?? "honeypot") : null,
    spamScore: flags.spamScore ?? null,
    spamTokens: flags.spamTokens ? JSON.stringify(flags.spamTokens) : null,
    dataHash: flags.dataHash ?? null,
    held: flags.isSpam || awaitingOptIn ? JSON.stringify({ subject: request.subject, replyTo: request.replyTo, cc: request.cc }) : null,
    trained: null,
  };
}

/** The write of one submission: its row, its files' rows, its Idempotency-Key's record, and its change for keep. */
export interface SubmissionWrite {
  row: SubmissionRow;
  files: Rows["rows"];
  /** The record of its Idempotency-Key, when it has one. */
  key: Step | null;
  change: Change;
}

/** The values of a submission's row as a multi-row insert takes them (see insertRows in db/statement.ts). */
export const insertedRow = ({ row }: SubmissionWrite): Record<string, unknown> => ({
  id: row.id,
  formId: row.formId,
  data: row.data,
  createdAt: row.createdAt,
  isRead: 0,
  isStarred: 0,
  isSpam: row.isSpam ? 1 : 0,
  spamReason: row.spamReason,
  spamScore: row.spamScore,
  spamTokens: row.spamTokens,
  dataHash: row.dataHash,
  held: row.held,
  unconfirmed: row.unconfirmed ? 1 : 0,
});

/**
 * The write of one submission at the createdAt its writer chose: the submission, its files and its
 * Idempotency-Key; what it counts and sends is keep's (its `change`), in the same write.
 */
export function submissionWrite(input: Received): SubmissionWrite {
  const { form, createdAt } = input;
  const attached = attachFiles(input.data, createdAt);
  const { isSpam } = input.flags;
  const unconfirmed = awaitsOptIn(form, isSpam);
  const row: SubmissionRow = {
    id: newId("submission", createdAt),
    formId: form.id,
    data: JSON.stringify(attached.data),
    createdAt,
    isRead: false,
    isStarred: false,
    isSpam,
    ...spamColumns(input.flags, unconfirmed),
    unconfirmed,
    confirmedAt: null,
    confirmedFrom: null,
  };
  const { idempotency } = input.flags;
  const key = idempotency
    ? {
        make: IDEMPOTENCY_KEY,
        values: { ...idempotency, redirected: idempotency.redirected ? 1 : 0, formId: form.id, submissionId: row.id, createdAt },
      }
    : null;
  const change: Change = {
    form,
    before: null,
    after: row,
    posted: { data: input.data, request: input.flags.notification ?? {}, language: input.flags.language },
    at: createdAt,
    routing: input.routing,
  };
  return { row, files: attached.files.map((file) => ({ ...file, submissionId: row.id, formId: form.id })), key, change };
}

/** What a stored submission's write did. */
export interface Written {
  row: SubmissionRow;
  /** What keep queued: the senders to wake once it is committed. */
  queued: Queued;
}
