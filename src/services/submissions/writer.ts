// The writer of posts. On a SQLite file, the posts that arrive while a write waits for its turn are written
// together, as one task of the writer's transaction: each post's fate is decided first (its form still there,
// its Idempotency-Key not taken, its createdAt past the form's newest), then every statement runs once for the
// whole batch — one multi-row insert of the submissions, the counters summed per form and day, the field list
// only when a post brings a name the form has not seen, the notifications in one insert (keep) — so that one
// bad post cannot fail the others and the cost of a post is mostly its own row. On libSQL each post is one batch
// request (write.ts). Either way a post is answered only after its COMMIT.
import type { Database } from "bun:sqlite";
import type { Db, Store } from "../../db/client.ts";
import { submissions } from "../../db/schema.ts";
import { insertRows, preparedText, runStep } from "../../db/statement.ts";
import { ApiError } from "../../errors.ts";
import { keep, type KeepDeps } from "./keep.ts";
import { IDEMPOTENCY_WINDOW_MS, IdempotencyKeyTaken, postWriter, submissionWrite, type Received, type SubmissionWrite, type Written } from "./write.ts";

/** At most this many posts in one write: a flood is cut into writes that each commit soon. */
const MAX_POSTS = 256;

/** A post waiting for its write, and how to answer it. */
interface Waiting {
  input: Omit<Received, "createdAt">;
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/** What the batch knows of a form, read once in its transaction. */
interface FormState {
  last: number;
  fields: string[];
  seen: Set<string>;
  grown: boolean;
}

const FORM_STATE = `SELECT last_submission_at AS last, fields FROM forms WHERE id = ?`;
const KEY_HELD = `SELECT 1 FROM idempotency_keys WHERE form_id = ? AND key = ? AND created_at > ? LIMIT 1`;
const SET_FIELDS = `UPDATE forms SET fields = ? WHERE id = ?`;

/** The columns of a new submission's row, as the multi-row insert takes them. */
const insertedRow = (write: SubmissionWrite) => {
  const { row } = write;
  return {
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
    unpaid: row.unpaid ? 1 : 0,
    paymentStatus: row.paymentStatus,
    paymentAmount: row.paymentAmount,
    paymentCurrency: row.paymentCurrency,
  };
};

/**
 * Writes a batch of posts in the caller's transaction (which holds the write lock, so what it reads of the forms
 * and keys stays true until the commit) and gives each post its outcome: written, or the error that is its answer.
 */
async function writeBatch(tx: Db, batch: Waiting[], deps: KeepDeps): Promise<({ written: Written } | { error: unknown })[]> {
  const client = (tx as unknown as { $client: Database }).$client;
  const now = Date.now();
  const states = new Map<string, FormState | null>();
  const keys = new Set<string>();
  const writes: SubmissionWrite[] = [];
  const outcomes = batch.map(({ input }): { write: SubmissionWrite } | { error: unknown } => {
    const formId = input.form.id;
    let state = states.get(formId);
    if (state === undefined) {
      const found = preparedText(client, FORM_STATE).get(formId) as { last: number; fields: string } | null;
      const fields = found ? (JSON.parse(found.fields) as string[]) : [];
      state = found ? { last: found.last, fields, seen: new Set(fields), grown: false } : null;
      states.set(formId, state);
    }
    if (!state) return { error: new ApiError("form_not_found", "This form no longer exists.") };
    const key = input.flags.idempotency?.key;
    if (key !== undefined) {
      // Taken by a post committed before, or by an earlier post of this batch: answered as that one.
      const taken = keys.has(`${formId} ${key}`) || preparedText(client, KEY_HELD).get(formId, key, now - IDEMPOTENCY_WINDOW_MS) !== null;
      if (taken) return { error: new IdempotencyKeyTaken() };
      keys.add(`${formId} ${key}`);
    }
    // Unique and rising per form, past whatever any process committed: the lock is held, nobody writes meanwhile.
    const createdAt = Math.max(now, state.last + 1);
    state.last = createdAt;
    for (const name of Object.keys(input.data)) {
      if (state.seen.has(name)) continue;
      state.seen.add(name);
      state.fields.push(name);
      state.grown = true;
    }
    const write = submissionWrite({ ...input, createdAt });
    writes.push(write);
    return { write };
  });
  await insertRows(tx, submissions, writes.map(insertedRow));
  for (const write of writes) for (const step of write.extras) await runStep(tx, step);
  for (const [formId, state] of states) if (state?.grown) preparedText(client, SET_FIELDS).run(JSON.stringify(state.fields), formId);
  const queued = await keep(
    tx,
    writes.map((write) => write.change),
    deps,
  );
  // The senders are woken once for the batch, by the first post answered.
  let wake = true;
  return outcomes.map((outcome) => {
    if ("error" in outcome) return outcome;
    const written: Written = { row: outcome.write.row, queued: wake ? queued : { mail: false, deliveries: false } };
    wake = false;
    return { written };
  });
}

/** Posts written a batch at a time on a SQLite file: each post's promise settles after the COMMIT of its batch. */
function batchWriter(store: Store, deps: KeepDeps) {
  let gathering: Waiting[] | null = null;
  return (input: Omit<Received, "createdAt">): Promise<Written> =>
    new Promise<Written>((resolve, reject) => {
      const waiting = { input, resolve, reject };
      if (gathering && gathering.length < MAX_POSTS) {
        gathering.push(waiting);
        return;
      }
      const batch: Waiting[] = [waiting];
      gathering = batch;
      const close = () => {
        if (gathering === batch) gathering = null;
      };
      store
        .write(
          async (tx) => {
            // Posts that arrive from here on wait for the next write.
            close();
            return writeBatch(tx, batch, deps);
          },
          { small: true },
        )
        .then(
          (outcomes) =>
            outcomes.forEach((outcome, i) => {
              if ("written" in outcome) batch[i]!.resolve(outcome.written);
              else batch[i]!.reject(outcome.error);
            }),
          (error) => {
            close();
            for (const post of batch) post.reject(error);
          },
        );
    });
}

/** The writer of posts for `store`: a batch per write on a SQLite file, a request per post on libSQL. */
export function submissionWriter(store: Store, deps: KeepDeps): (input: Omit<Received, "createdAt">) => Promise<Written> {
  return store.driver === "sqlite" ? batchWriter(store, deps) : postWriter(store, deps);
}
