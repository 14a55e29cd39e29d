import { and, eq, gt, sql } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { memoized, preparedOn } from "../../db/prepared.ts";
import { submissions, type FormRow } from "../../db/schema.ts";
import type { SpamReason, SpamRules } from "../../domain/types.ts";
import { UploadedFile } from "../../lib/files.ts";
import { altchaService } from "./altcha.ts";
import { DEFAULT_FILTER_THRESHOLD } from "../../domain/limits.ts";
import { spamFilterService } from "./filter.ts";
import { checkRules } from "./rules.ts";

/** Why a new submission is spam, with the filter's score and telling tokens when the filter scored it. */
export interface SpamVerdict {
  reason: SpamReason | null;
  score: number | null;
  tokens: string[] | null;
  /**
   * The data's hash, when the form's duplicate rule is on: stored with the submission for a later copy to find.
   * Without the rule no hash is made or stored (a hash and its index entry were a part of every post's cost).
   */
  hash?: string | null;
}

/** What the checks read of a form. */
export type JudgedForm = Pick<FormRow, "id" | "accountId" | "spamRules" | "spamFilterEnabled" | "spamFilterThreshold">;

const HOUR_MS = 3_600_000;

/** A hash of the data as posted (a file counts by its name, type and size), for the duplicate rule. */
export function dataHash(data: Record<string, unknown>): string {
  // At the file, not at its bytes: JSON.stringify calls a Buffer's toJSON (an array of every byte) before the replacer sees it.
  const text = JSON.stringify(data, (_key, value) =>
    value instanceof UploadedFile ? { file: value.name, type: value.type, size: value.content.byteLength } : value,
  );
  return new Bun.CryptoHasher("sha256")
    .update(text ?? "")
    .digest("hex")
    .slice(0, 32);
}

const earlierSame = preparedOn((db) =>
  db
    .select({ id: submissions.id })
    .from(submissions)
    .where(
      and(
        eq(submissions.formId, sql.placeholder("formId")),
        eq(submissions.dataHash, sql.placeholder("hash")),
        gt(submissions.createdAt, sql.placeholder("since")),
      ),
    )
    .limit(1)
    .prepare(),
);

const rulesOf = memoized((text: string) => JSON.parse(text) as SpamRules, 256);

/** The spam checks of a public post (rules, duplicates, the learning filter) and the ALTCHA captcha. */
export function spamService(store: Store) {
  const filter = spamFilterService(store);
  return {
    filter,
    altcha: altchaService(store),

    /** The verdict of the form's rules, then of the account's filter, on a new submission's data. */
    async judge(form: JudgedForm, data: Record<string, unknown>): Promise<SpamVerdict> {
      if (form.spamRules) {
        const rule = await checkRules(form.spamRules, data);
        if (rule) return { reason: rule, score: null, tokens: null };
      }
      const hours = form.spamRules ? rulesOf(form.spamRules).duplicateWindowHours : undefined;
      const hash = hours ? dataHash(data) : null;
      if (hash !== null) {
        const since = Date.now() - hours! * HOUR_MS;
        const earlier = await earlierSame(store.db).get({ formId: form.id, hash, since });
        if (earlier) return { reason: "duplicate", score: null, tokens: null, hash };
      }
      if (!form.spamFilterEnabled) return { reason: null, score: null, tokens: null, hash };
      const scored = await filter.score(form.accountId, data);
      if (!scored) return { reason: null, score: null, tokens: null, hash };
      const threshold = form.spamFilterThreshold ?? DEFAULT_FILTER_THRESHOLD;
      return { reason: scored.score > threshold ? "filter" : null, score: scored.score, tokens: scored.tokens, hash };
    },
  };
}

export type SpamService = ReturnType<typeof spamService>;
