// Idempotency-Key on the public post (docs/api.md, "Retries: Idempotency-Key"): a client that retries after a network error sends the same
// key again, and a repeat within 24 hours is answered as the first post was, storing nothing new. The record is
// written in the submission's own write (writer.ts), so a post is never stored without it nor it without the post.
import { createHash } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { runStep, type StatementMaker, type Step } from "../../db/statement.ts";
import { ApiError } from "../../errors.ts";
import { UploadedFile } from "../../lib/files.ts";
import { IDEMPOTENCY_WINDOW_MS, IdempotencyKeyTaken } from "./write.ts";

/** What a repeat is answered with: the first post's submission and where it sent the browser. */
export interface KeptAnswer {
  submissionId: string;
  location: string;
  redirected: boolean;
}

/** The header's value as a key: 1–200 printable ASCII characters, else `400 invalid_parameter`; null when absent. */
export function idempotencyKeyOf(header: string | null): string | null {
  if (header === null) return null;
  if (!/^[\x20-\x7e]{1,200}$/.test(header) || header.trim() === "") {
    throw new ApiError("invalid_parameter", "Idempotency-Key must be 1 to 200 printable ASCII characters, such as a UUID.", {
      field: "Idempotency-Key",
    });
  }
  return header;
}

/**
 * SHA-256 of the post's fields as read (special fields included: `_next` changes the answer), a file by its
 * name, type and content, in a canonical form: object keys sorted at every level, so that the same JSON fields
 * in another order are the same post (a client's JSON encoder may order them as it likes); the order of a
 * list's items still counts. Read fields rather than the body's bytes: a browser that posts the same form again
 * picks a new multipart boundary.
 */
export function fingerprintOf(fields: Record<string, unknown>): string {
  const text = JSON.stringify(fields, (_name, value) => {
    if (value instanceof UploadedFile) return { file: value.name, type: value.type, sha256: createHash("sha256").update(value.content).digest("hex") };
    if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
    const sorted: Record<string, unknown> = Object.create(null);
    for (const name of Object.keys(value).sort()) sorted[name] = (value as Record<string, unknown>)[name];
    return sorted;
  });
  return createHash("sha256").update(text).digest("hex");
}

/** The live record of a post's Idempotency-Key: the one look-up of a key, for a repeat's answer and for the write's decision. */
const LIVE_KEY: StatementMaker = (p) =>
  sql`SELECT fingerprint, submission_id AS submissionId, location, redirected FROM ${idempotencyKeys}
    WHERE form_id = ${p("formId")} AND key = ${p("key")} AND created_at > ${p("from")}`;

/** The statement that finds the record of `key` on `formId` still live at `now`: a row when the key is held. */
export const liveKey = (formId: string, key: string, now: number): Step => ({ make: LIVE_KEY, values: { formId, key, from: now - IDEMPOTENCY_WINDOW_MS } });

/** Most expired records one purge transaction deletes. */
const PURGE_BATCH = 500;

/** The kept answers of posts that sent an Idempotency-Key, and the wait of a repeat for its first post. */
export function idempotencyService(store: Store) {
  // The posts under way in this process, by form and key: a repeat waits for its first to be stored or refused.
  const underWay = new Map<string, Promise<void>>();

  /** The live record of `key`, as the first answer, or null; `409 idempotency_key_reused` when its fields differ. */
  async function keptAnswer(formId: string, key: string, fingerprint: string): Promise<KeptAnswer | null> {
    const [record] = (await runStep(store.db, liveKey(formId, key, Date.now()))) as (Omit<KeptAnswer, "redirected"> & {
      fingerprint: string;
      redirected: number;
    })[];
    if (!record) return null;
    if (record.fingerprint !== fingerprint) {
      throw new ApiError("idempotency_key_reused", "This Idempotency-Key was already used for a different submission; send a new key with new data.", {
        field: "Idempotency-Key",
      });
    }
    return { submissionId: record.submissionId, location: record.location, redirected: Boolean(record.redirected) };
  }

  return {
    /**
     * Runs `accept` (the rest of the post's rules and its write) unless a post with the same key and fields was
     * stored within 24 hours, whose answer `replay` gives instead. A repeat waits for a post with its key that is
     * still under way in this process; one under way in another process is caught by the write itself.
     */
    async once<T>(formId: string, key: string, fingerprint: string, accept: () => Promise<T>, replay: (kept: KeptAnswer) => T): Promise<T> {
      const slot = `${formId}\n${key}`;
      for (let ahead = underWay.get(slot); ahead; ahead = underWay.get(slot)) await ahead;
      let done!: () => void;
      underWay.set(
        slot,
        new Promise<void>((resolve) => {
          done = resolve;
        }),
      );
      try {
        const kept = await keptAnswer(formId, key, fingerprint);
        if (kept) return replay(kept);
        try {
          return await accept();
        } catch (error) {
          const first = error instanceof IdempotencyKeyTaken ? await keptAnswer(formId, key, fingerprint) : null;
          if (first) return replay(first);
          throw error;
        }
      } finally {
        underWay.delete(slot);
        done();
      }
    },

    /** Deletes the records older than `before`, a small batch per transaction; returns how many went. */
    async purge(before: number): Promise<number> {
      let deleted = 0;
      // Looked for on the reader first, so that an hour with nothing due costs no write.
      while ((await store.db.all(sql`SELECT 1 FROM ${idempotencyKeys} WHERE created_at < ${before} LIMIT 1`)).length > 0) {
        const gone: unknown[] = await store.write((tx) =>
          tx.all(
            sql`DELETE FROM ${idempotencyKeys} WHERE rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE created_at < ${before} LIMIT ${PURGE_BATCH}) RETURNING 1`,
          ),
        );
        deleted += gone.length;
      }
      return deleted;
    },
  };
}

export type IdempotencyService = ReturnType<typeof idempotencyService>;
