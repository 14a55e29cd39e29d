// The writer of posts, one for every engine. The posts that arrive while a write waits for its turn are written
// together, in one transaction of the store (group commit: one commit makes them all durable). In it, what the
// batch depends on is read first (each form's newest createdAt and field list, which Idempotency-Keys are held);
// then each post's fate is decided in plain code (its form still there, its key not taken, its createdAt past
// the form's newest, the names it adds to the field list) and the batch becomes one statement plan — one
// multi-row insert of the submissions, their files and keys, the field lists that grew — which the engine runs
// (runPlan), and keep (keep.ts) counts and sends in the same transaction. One bad post cannot fail the others,
// and a post is answered only after its COMMIT.
import { sql } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { files, forms, submissions } from "../../db/schema.ts";
import { runPlan, runStep, type Plan, type StatementMaker } from "../../db/statement.ts";
import { ApiError } from "../../errors.ts";
import { liveKey } from "./idempotency.ts";
import { keep, type KeepDeps } from "./keep.ts";
import { IdempotencyKeyTaken, insertedRow, submissionWrite, type Received, type SubmissionWrite, type Written } from "./write.ts";

/** At most this many posts in one write: a flood is cut into writes that each commit soon. */
const MAX_POSTS = 256;

/** A post waiting for its write, and how to answer it. */
interface Waiting {
  input: Omit<Received, "createdAt">;
  resolve: (written: Written) => void;
  reject: (error: unknown) => void;
}

/** What the batch knows of a form, read once in its transaction; null when the form is gone. */
interface FormState {
  last: number;
  fields: string[];
}

/** What the batch read before deciding: its forms, and the Idempotency-Keys already held (`formId key`). */
interface Found {
  forms: Map<string, FormState | null>;
  heldKeys: Set<string>;
}

/** Each post's fate: the write to make, or the error that is its answer; and the field lists that grew. */
interface Decided {
  outcomes: ({ write: SubmissionWrite } | { error: unknown })[];
  grown: Map<string, string[]>;
}

const FORM_STATE: StatementMaker = (p) => sql`SELECT last_submission_at AS last, fields FROM ${forms} WHERE id = ${p("formId")}`;
const SET_FIELDS: StatementMaker = (p) => sql`UPDATE ${forms} SET fields = ${p("fields")} WHERE id = ${p("formId")}`;

const slot = (formId: string, key: string) => `${formId} ${key}`;

/** Reads, in the caller's transaction (which holds the write lock, so it stays true until the commit), what the posts' fates depend on. */
async function find(tx: Db, posts: Omit<Received, "createdAt">[], now: number): Promise<Found> {
  const found: Found = { forms: new Map(), heldKeys: new Set() };
  for (const { form, flags } of posts) {
    if (!found.forms.has(form.id)) {
      const [row] = (await runStep(tx, { make: FORM_STATE, values: { formId: form.id } })) as { last: number; fields: string }[];
      found.forms.set(form.id, row ? { last: row.last, fields: JSON.parse(row.fields) as string[] } : null);
    }
    const key = flags.idempotency?.key;
    if (key !== undefined && (await runStep(tx, liveKey(form.id, key, now))).length > 0) found.heldKeys.add(slot(form.id, key));
  }
  return found;
}

/**
 * Decides each post's fate from what was found, in order: its form must still be there, its Idempotency-Key not held
 * (by a post committed before, or an earlier post of this batch: it is answered as that one), and its createdAt
 * is unique and rising per form, past whatever any process committed. Plain code, the same on every engine.
 */
function decide(posts: Omit<Received, "createdAt">[], found: Found, now: number): Decided {
  const last = new Map<string, number>();
  const grown = new Map<string, string[]>();
  const seen = new Map<string, Set<string>>();
  const keys = new Set(found.heldKeys);
  const outcomes = posts.map((input): Decided["outcomes"][number] => {
    const formId = input.form.id;
    const state = found.forms.get(formId);
    if (!state) return { error: new ApiError("form_not_found", "This form no longer exists.") };
    const key = input.flags.idempotency?.key;
    if (key !== undefined) {
      if (keys.has(slot(formId, key))) return { error: new IdempotencyKeyTaken() };
      keys.add(slot(formId, key));
    }
    const createdAt = Math.max(now, (last.get(formId) ?? state.last) + 1);
    last.set(formId, createdAt);
    let names = seen.get(formId);
    if (!names) {
      names = new Set(state.fields);
      seen.set(formId, names);
    }
    const added = Object.keys(input.data).filter((name) => !names.has(name));
    if (added.length > 0) {
      for (const name of added) names.add(name);
      grown.set(formId, [...(grown.get(formId) ?? state.fields), ...added]);
    }
    return { write: submissionWrite({ ...input, createdAt }) };
  });
  return { outcomes, grown };
}

/** The statements of the decided writes: the submissions, their files and keys in few statements, and the field lists that grew. */
function planOf({ outcomes, grown }: Decided): Plan {
  const writes = outcomes.flatMap((outcome) => ("write" in outcome ? [outcome.write] : []));
  return [
    { table: submissions, rows: writes.map(insertedRow) },
    { table: files, rows: writes.flatMap((write) => write.files) },
    ...writes.flatMap((write) => (write.key ? [write.key] : [])),
    ...[...grown].map(([formId, fields]) => ({ make: SET_FIELDS, values: { formId, fields: JSON.stringify(fields) } })),
  ];
}

/** Writes a batch of posts in the caller's transaction and gives each post its outcome: written, or the error that is its answer. */
async function writeBatch(tx: Db, batch: Waiting[], deps: KeepDeps): Promise<({ written: Written } | { error: unknown })[]> {
  const now = Date.now();
  const posts = batch.map((post) => post.input);
  const decided = decide(posts, await find(tx, posts, now), now);
  await runPlan(tx, planOf(decided));
  const changes = decided.outcomes.flatMap((outcome) => ("write" in outcome ? [outcome.write.change] : []));
  const queued = await keep(tx, changes, deps);
  // The senders are woken once for the batch, by the first post answered.
  let wake = true;
  return decided.outcomes.map((outcome) => {
    if ("error" in outcome) return outcome;
    const written: Written = { row: outcome.write.row, queued: wake ? queued : { mail: false, deliveries: false } };
    wake = false;
    return { written };
  });
}

/** The writer of posts for `store`, a batch per write: each post's promise settles after the COMMIT of its batch. */
export function submissionWriter(store: Store, deps: KeepDeps): (input: Omit<Received, "createdAt">) => Promise<Written> {
  let gathering: Waiting[] | null = null;
  return (input) =>
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
