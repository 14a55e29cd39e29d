// The one write of a submission, on both drivers: its statements are defined once, here, at load (SQL text
// with placeholders); on a SQLite file they run in the writer's transaction as statements prepared once per
// connection, on libSQL they go as one batch, one request. Every statement after the submission's own insert
// writes only when that insert did, so a write that lost a race to another process writes nothing at all.
import type { Database, Statement } from "bun:sqlite";
import { fillPlaceholders, getTableColumns, sql, type SQL } from "drizzle-orm";
import { SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Store, WriteStatement } from "../../db/client.ts";
import { destinations, files, forms, idempotencyKeys, notifications, submissions, webhooks, type FormRow, type SubmissionRow } from "../../db/schema.ts";
import { DAY_MS } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { attachFiles } from "../files.ts";
import { awaitsOptIn, confirmationInsert, confirmationValues, type OptInLinks } from "../confirmations.ts";
import { notificationRowFor, type NotificationRequest } from "../notifications.ts";
import { countReceivedStatements, dayOf, storedSubmission } from "./counters.ts";
import { growFieldListStatement } from "./field-list.ts";
import { dataHash } from "../spam/verdict.ts";
import type { SpamReason } from "../../domain/types.ts";

/** SQL text and its parameters, placeholders among them: made once. */
type Defined = { sql: string; params: unknown[] };
/** A statement ready to run: its text and its arguments for this submission. */
type Bound = { sql: string; args: unknown[] };

const dialect = new SQLiteSyncDialect();
const define = (query: SQL): Defined => dialect.sqlToQuery(query);
const bind = (statement: Defined, values: Record<string, unknown>): Bound => ({ sql: statement.sql, args: fillPlaceholders(statement.params, values) });

/** `INSERT … SELECT <a row> WHERE <the submission was written>`, its values named after the table's columns. */
function insertIfStored(table: SQLiteTable, omit: string[] = []): Defined {
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => !omit.includes(key));
  const names = sql.join(
    columns.map(([, column]) => sql.identifier(column.name)),
    sql`, `,
  );
  const values = sql.join(
    columns.map(([key]) => sql.placeholder(key)),
    sql`, `,
  );
  return define(sql`INSERT INTO ${table} (${names}) SELECT ${values} WHERE ${storedSubmission}`);
}

/** How long a post's Idempotency-Key is kept: a repeat within this time gets the first answer again. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

/** A live record of the post's Idempotency-Key (none without a key: `key = NULL` matches nothing). */
const keyHeld = sql`EXISTS (SELECT 1 FROM ${idempotencyKeys}
  WHERE form_id = ${sql.placeholder("formId")} AND key = ${sql.placeholder("idempotencyKey")} AND created_at > ${sql.placeholder("keysFrom")})`;

const STATEMENTS = {
  /**
   * The submission, only while its createdAt is later than the form's newest (another process may have stored
   * one) and no post with its Idempotency-Key was stored meanwhile (by another process, or the same one's twin).
   */
  insert: define(sql`
    INSERT INTO ${submissions} (id, form_id, data, created_at, is_read, is_starred, is_spam, spam_reason, spam_score, spam_tokens, data_hash, held,
      unconfirmed)
    SELECT ${sql.placeholder("id")}, ${sql.placeholder("formId")}, ${sql.placeholder("data")}, ${sql.placeholder("createdAt")}, 0, 0,
      ${sql.placeholder("isSpam")}, ${sql.placeholder("spamReason")}, ${sql.placeholder("spamScore")}, ${sql.placeholder("spamTokens")},
      ${sql.placeholder("dataHash")}, ${sql.placeholder("held")}, ${sql.placeholder("unconfirmed")}
    FROM ${forms} WHERE id = ${sql.placeholder("formId")} AND last_submission_at < ${sql.placeholder("createdAt")} AND NOT ${keyHeld}
    RETURNING id`),
  /** The post's Idempotency-Key, taking the place of an expired record of the same key that the purger has not reached. */
  idempotencyKey: define(sql`
    INSERT INTO ${idempotencyKeys} (form_id, key, fingerprint, submission_id, location, redirected, created_at)
    SELECT ${sql.placeholder("formId")}, ${sql.placeholder("idempotencyKey")}, ${sql.placeholder("fingerprint")}, ${sql.placeholder("submissionId")},
      ${sql.placeholder("location")}, ${sql.placeholder("redirected")}, ${sql.placeholder("createdAt")}
    WHERE ${storedSubmission}
    ON CONFLICT (form_id, key) DO UPDATE SET fingerprint = excluded.fingerprint, submission_id = excluded.submission_id,
      location = excluded.location, redirected = excluded.redirected, created_at = excluded.created_at`),
  counters: countReceivedStatements(storedSubmission).map(define),
  fields: define(growFieldListStatement(storedSubmission)),
  file: insertIfStored(files),
  notification: insertIfStored(notifications),
  /** The confirmation email to the person who submitted, its limits counted in the same write (contract §16). */
  confirmation: define(confirmationInsert((name) => sql.placeholder(name))),
};

/** What the write needs of its form: the route's own look-up, read before the write. */
export type ReceivingForm = Pick<FormRow, "id" | "name" | "slug" | "mode" | "notificationEmail" | "confirmation"> &
  Partial<Pick<FormRow, "notificationRoutes">> & { lastSubmissionAt?: number };

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
  notification?: NotificationRequest;
  /** The post's Idempotency-Key, when it sent one. */
  idempotency?: IdempotencyRequest;
}

/** One submission to write, its createdAt chosen by the caller. */
export interface Received {
  form: ReceivingForm;
  data: Record<string, unknown>;
  flags: ReceiveFlags;
  createdAt: number;
}

/** Thrown when a post's Idempotency-Key was stored by another post while this one was being read: answer as that one. */
export class IdempotencyKeyTaken extends Error {}

/**
 * The spam columns of a new submission: its reason, score and tokens, the hash the duplicate rule looks for,
 * and (when it is spam, or awaits its double opt-in) what its notification asked for, held back until the owner
 * says it is not spam or the link is opened.
 */
function spamColumns(data: Record<string, unknown>, flags: ReceiveFlags, awaitingOptIn: boolean) {
  const request = flags.notification ?? {};
  return {
    spamReason: flags.isSpam ? (flags.spamReason ?? "honeypot") : null,
    spamScore: flags.spamScore ?? null,
    spamTokens: flags.spamTokens ? JSON.stringify(flags.spamTokens) : null,
    dataHash: dataHash(data),
    held: flags.isSpam || awaitingOptIn ? JSON.stringify({ subject: request.subject, replyTo: request.replyTo, cc: request.cc }) : null,
    trained: null,
  };
}

/** The write of one submission as statements, and how to read what they did. */
export interface SubmissionWrite {
  row: SubmissionRow;
  statements: Bound[];
  /** Whether a notification or a confirmation to send may have been written, once the submission was. */
  queued: boolean;
  /** The statement of its webhook deliveries; null for spam and a submission awaiting its double opt-in. */
  events: (() => Bound) | null;
}

/**
 * The statements of one submission's write: the submission, its files, the counters, the field list, its
 * notification, its confirmation, and apart (from `events`, when kept) its webhook deliveries, which come last.
 * `optIn` makes the double opt-in links (its key loaded before).
 */
export function submissionWrite(input: Received, events: ((row: SubmissionRow) => Bound) | null, optIn: OptInLinks | null = null): SubmissionWrite {
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
    ...spamColumns(input.data, input.flags, unconfirmed),
    unconfirmed,
    confirmedAt: null,
    confirmedFrom: null,
  };
  // Spam, and a submission awaiting its double opt-in, count nowhere and tell nobody (see counterShare).
  const kept = isSpam || row.unconfirmed ? 0 : 1;
  const values = {
    ...row,
    submissionId: row.id,
    isSpam: isSpam ? 1 : 0,
    unconfirmed: row.unconfirmed ? 1 : 0,
    kept,
    spam: isSpam ? 1 : 0,
    day: dayOf(createdAt),
    names: JSON.stringify(Object.keys(input.data)),
    idempotencyKey: input.flags.idempotency?.key ?? null,
    keysFrom: createdAt - IDEMPOTENCY_WINDOW_MS,
  };
  const notification = kept ? notificationRowFor(form, row, input.flags.notification ?? {}) : null;
  const confirmation = confirmationValues(form, row, input.data, optIn ? optIn.link : null);
  const statements = [
    bind(STATEMENTS.insert, values),
    ...attached.files.map((file) => bind(STATEMENTS.file, { ...file, submissionId: row.id, formId: form.id })),
    ...STATEMENTS.counters.map((statement) => bind(statement, values)),
    bind(STATEMENTS.fields, values),
    ...(notification ? [bind(STATEMENTS.notification, notification)] : []),
    ...(confirmation ? [bind(STATEMENTS.confirmation, { ...confirmation })] : []),
    ...(input.flags.idempotency
      ? [bind(STATEMENTS.idempotencyKey, { ...values, ...input.flags.idempotency, redirected: input.flags.idempotency.redirected ? 1 : 0 })]
      : []),
  ];
  // A confirmation may wait in the outbox too: waking the sender for nothing costs one look.
  const queued = notification?.status === "pending" || confirmation !== null;
  return { row, statements, queued, events: events && kept ? () => events(row) : null };
}

// Statements of the write prepared once per SQLite connection, by their text (the webhook deliveries' text,
// made by the webhooks service, is the same for every submission too).
const preparedTexts = new WeakMap<Database, Map<string, Statement>>();
function prepared(client: Database, text: string): Statement {
  let statements = preparedTexts.get(client);
  if (!statements) {
    statements = new Map();
    preparedTexts.set(client, statements);
  }
  let statement = statements.get(text);
  if (!statement) {
    if (statements.size >= 64) statements.clear();
    statement = client.prepare(text);
    statements.set(text, statement);
  }
  return statement;
}

/** A bound statement as the libSQL batch takes drizzle's queries: its text and arguments, and its rows back. */
const batchItem = (statement: Bound) =>
  ({
    _prepare: () => ({ getQuery: () => ({ sql: statement.sql, params: statement.args }), mapResult: (result: { rows: unknown[] }) => result.rows }),
  }) as unknown as WriteStatement;

const HAS_ENDPOINTS = define(sql`SELECT 1 FROM ${webhooks} WHERE form_id = ${sql.placeholder("formId")}
  UNION ALL SELECT 1 FROM ${destinations} WHERE form_id = ${sql.placeholder("formId")} LIMIT 1`);

/**
 * Runs a submission's write as one write: one batch on libSQL (one request); on a SQLite file, in the writer's
 * transaction, where the deliveries' statement (the costliest to make: a body per endpoint format) is made only
 * when the form has an endpoint. Says whether the submission was written, and whether deliveries were.
 */
async function runWrite(store: Store, write: SubmissionWrite, formId: string): Promise<{ stored: boolean; events: boolean }> {
  if (store.driver === "libsql") {
    const statements = write.events ? [...write.statements, write.events()] : write.statements;
    const results = (await store.batch(() => statements.map(batchItem))) as unknown[][];
    return { stored: results[0]!.length > 0, events: write.events !== null && results[results.length - 1]!.length > 0 };
  }
  return store.write(
    async (tx) => {
      const client = (tx as unknown as { $client: Database }).$client;
      const run = (statement: Bound) => prepared(client, statement.sql).all(...(statement.args as never[])) as unknown[];
      const stored = write.statements.map(run)[0]!.length > 0;
      const events = stored && write.events !== null && run(bind(HAS_ENDPOINTS, { formId })).length > 0 && run(write.events()).length > 0;
      return { stored, events };
    },
    { small: true },
  );
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
  /** A notification to send was written. */
  queued: boolean;
  /** Webhook deliveries were written. */
  events: boolean;
}

/**
 * Writes submissions (see submissionWrite), each past its form's newest createdAt: a form's createdAt values are
 * unique and rise in the order submissions are stored, so that a script polling with since=<the last createdAt it
 * saw> never misses one stored later in the same millisecond. A write that lost to another process's (which
 * stored a submission of the form at that time or later) is tried again past it.
 */
export function submissionWriter(store: Store, events: ((form: ReceivingForm, row: SubmissionRow) => Bound) | null, optIn: OptInLinks | null = null) {
  // The newest createdAt this process gave each form, so that its own submissions never wait on each other.
  const lastCreated = new Map<string, number>();
  return async (input: Omit<Received, "createdAt">): Promise<Written> => {
    const { form } = input;
    if (lastCreated.size >= 10_000) lastCreated.clear();
    const queueEvents = events && ((row: SubmissionRow) => events(form, row));
    let last = Math.max(lastCreated.get(form.id) ?? 0, form.lastSubmissionAt ?? 0);
    for (let attempt = 0; attempt < 50; attempt++) {
      // Past what this process has handed out meanwhile too: the map only ever grows, or the posts waiting in the
      // same batch would take each other's times and all lose.
      const createdAt = Math.max(Date.now(), last + 1, (lastCreated.get(form.id) ?? 0) + 1);
      lastCreated.set(form.id, createdAt);
      const write = submissionWrite({ ...input, createdAt }, queueEvents, optIn);
      const outcome = await runWrite(store, write, form.id);
      if (outcome.stored) return { row: write.row, queued: write.queued, events: outcome.events };
      if (input.flags.idempotency && (await keyStored(store.db, form.id, input.flags.idempotency.key, createdAt))) throw new IdempotencyKeyTaken();
      const newest = await newestOf(store.db, form.id);
      if (newest === null) throw new ApiError("form_not_found", "This form no longer exists.");
      last = Math.max(createdAt, newest);
    }
    throw new Error(`could not store a submission of form ${form.id}: other processes kept storing later ones`);
  };
}

/** A statement made by another service with drizzle (its values inline), as the write runs it. */
export function asBound(query: SQL): Bound {
  const { sql: text, params } = dialect.sqlToQuery(query);
  return { sql: text, args: params };
}
