import { and, asc, eq, gt, inArray, isNotNull, lt, or, sql, type SQL } from "drizzle-orm";
import { counted } from "../lib/plural.ts";
import type { Db, Store } from "../db/client.ts";
import { forms, submissions } from "../db/schema.ts";
import { CONFIRMATION_DEFAULTS } from "../domain/limits.ts";
import { DAY_MS, type Principal } from "../domain/types.ts";
import { lazySchema, parseBody } from "../lib/validate.ts";
import { recordActivity } from "./people/activity.ts";
import { mentionedInSql, PERSONAL_DATA } from "./personal-data.ts";
import { removeShares } from "./submissions/counters.ts";
import { namesSince, scannedFields } from "./submissions/field-list.ts";
import { confirmationOf } from "./outbox/confirmations.ts";
import { forgetMark, type Mark } from "./spam/filter.ts";

/** Rows deleted in one transaction: small, so that submissions never wait long behind a purge or an erasure. */
export const DELETE_BATCH = 500;
const SCAN_BATCH = 500;
// How far before a field-list scan began its write looks for names: a post whose write began before the scan
// and committed after the scan passed its place is older than the scan's start by at most its write's time.
const SCAN_OVERLAP_MS = 60_000;

/** Per form, how many submissions were (or would be) deleted. */
export type CountByForm = Record<string, number>;

/** What `POST /api/submissions/erase` answers. */
export interface Erasure {
  erased: number;
  forms: CountByForm;
  dryRun: boolean;
}

/** The body of POST /api/submissions/erase (the OpenAPI document is generated from it too). */
export const eraseSchema = lazySchema((z) =>
  z.strictObject({
    email: z
      .string({ error: "email must be the email address whose submissions to erase." })
      .trim()
      .min(3, "email must be the email address whose submissions to erase.")
      .max(254, "email must be at most 254 characters.")
      .regex(/^[^\s@]+@[^\s@]+$/, "email must be an email address such as ann@example.com."),
    dryRun: z.boolean({ error: "dryRun must be true or false." }).optional(),
  }),
);

/** True when `value`, or any value inside it (arrays, objects), is the address: trimmed, case-insensitive. */
function mentions(value: unknown, address: string): boolean {
  if (typeof value === "string") return value.trim().toLowerCase() === address;
  if (Array.isArray(value)) return value.some((v) => mentions(v, address));
  if (typeof value === "object" && value !== null) return Object.values(value).some((v) => mentions(v, address));
  return false;
}

/**
 * Deletes these submissions (their files and notifications go with them) that still match `still`, taking
 * each one's share off its form's counters. Returns how many went, per form.
 */
async function deleteSubmissions(tx: Db, ids: string[], still?: SQL): Promise<CountByForm> {
  const gone = await tx
    .delete(submissions)
    .where(and(inArray(submissions.id, ids), still))
    .returning({
      formId: submissions.formId,
      createdAt: submissions.createdAt,
      isRead: submissions.isRead,
      isStarred: submissions.isStarred,
      isSpam: submissions.isSpam,
      unconfirmed: submissions.unconfirmed,
      unpaid: submissions.unpaid,
    });
  // The day counters that lists and counts with `since` read lose them too.
  return removeShares(tx, gone);
}

function addCounts(into: CountByForm, more: CountByForm): void {
  for (const [formId, n] of Object.entries(more)) into[formId] = (into[formId] ?? 0) + n;
}

/** Lets writes queued behind a batch (submissions arriving) go first. */
const yieldToOthers = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Retention (purging what forms keep no longer) and erasure of one person's submissions (docs/api.md, "Retention and erasure"). */
/** Takes back the owner's marks of the submissions `ids` (those the learning filter learned from). */
async function forgetMarks(tx: Db, accountId: string, ids: string[]): Promise<void> {
  const marked = await tx
    .select({ data: submissions.data, trained: submissions.trained })
    .from(submissions)
    .where(and(inArray(submissions.id, ids), isNotNull(submissions.trained)));
  for (const row of marked) await forgetMark(tx, accountId, JSON.parse(row.data) as Record<string, unknown>, row.trained as Mark);
}

export function retentionService(store: Store) {
  /** Deletes `ids` in small transactions, then brings each touched form's field list up to date. */
  async function deleteInBatches(ids: string[], options: { forgetMarksOf?: string } = {}): Promise<CountByForm> {
    const counts: CountByForm = {};
    for (let i = 0; i < ids.length; i += DELETE_BATCH) {
      const batch = ids.slice(i, i + DELETE_BATCH);
      const write = async (tx: Db) => {
        if (options.forgetMarksOf) await forgetMarks(tx, options.forgetMarksOf, batch);
        return deleteSubmissions(tx, batch);
      };
      addCounts(counts, await store.write(write));
      await yieldToOthers();
    }
    await rebuildFieldLists(Object.keys(counts));
    return counts;
  }

  /**
   * Each form's field list read again from what is left: scanned in pages outside any write (scannedFields),
   * then stored with the names of what arrived meanwhile, which the scan may have passed by, at the end.
   */
  async function rebuildFieldLists(formIds: string[]): Promise<void> {
    for (const formId of formIds) {
      const since = Date.now() - SCAN_OVERLAP_MS;
      const scanned = await scannedFields(store.db, formId);
      await store.write(async (tx) => {
        const seen = new Set(scanned);
        const arrived = [...(await namesSince(tx, formId, since))].filter((name) => !seen.has(name));
        await tx
          .update(forms)
          .set({ fields: JSON.stringify([...scanned, ...arrived]) })
          .where(eq(forms.id, formId));
      });
    }
  }

  /**
   * Deletes a form's submissions that match `older` (spam or not, before a time), a batch per transaction.
   * Each batch is found on the reader first, so a form with nothing due costs no write at all.
   */
  async function purgeWhere(formId: string, older: SQL, stopped: () => boolean): Promise<number> {
    let deleted = 0;
    while (!stopped()) {
      const due = await store.db
        .select({ id: submissions.id })
        .from(submissions)
        .where(and(eq(submissions.formId, formId), older))
        .orderBy(asc(submissions.createdAt), asc(submissions.id))
        .limit(DELETE_BATCH);
      if (due.length === 0) break;
      // Checked again in the write: a row the owner moved out of spam meanwhile is no longer due.
      const n = await store.write(
        async (tx) =>
          (
            await deleteSubmissions(
              tx,
              due.map((row) => row.id),
              older,
            )
          )[formId] ?? 0,
      );
      deleted += n;
      if (due.length < DELETE_BATCH) break;
      await yieldToOthers();
    }
    return deleted;
  }

  /** Deletes the submissions whose double opt-in link was never opened within their form's window (docs/api.md, "Confirmation email and double opt-in"). */
  async function purgeUnconfirmed(now: number, stopped: () => boolean): Promise<CountByForm> {
    const confirming = await store.db.select({ id: forms.id, confirmation: forms.confirmation }).from(forms).where(isNotNull(forms.confirmation));
    const counts: CountByForm = {};
    for (const form of confirming) {
      if (stopped()) break;
      const days = confirmationOf(form)?.optInDays ?? CONFIRMATION_DEFAULTS.optInDays;
      const n = await purgeWhere(form.id, and(sql`${submissions.unconfirmed} = 1`, lt(submissions.createdAt, now - days * DAY_MS))!, stopped);
      if (n > 0) {
        counts[form.id] = n;
        await rebuildFieldLists([form.id]);
      }
    }
    return counts;
  }

  return {
    /**
     * Deletes, on every form with a retention, the submissions older than its retentionDays and the spam
     * older than its spamRetentionDays (or its retentionDays, when shorter), as of `now`. Returns the count per form.
     */
    async purge(now: number, options: { stopped?: () => boolean } = {}): Promise<CountByForm> {
      const stopped = options.stopped ?? (() => false);
      const kept = await store.db
        .select({ id: forms.id, retentionDays: forms.retentionDays, spamRetentionDays: forms.spamRetentionDays })
        .from(forms)
        .where(or(isNotNull(forms.retentionDays), isNotNull(forms.spamRetentionDays)));
      const counts: CountByForm = {};
      for (const form of kept) {
        if (stopped()) break;
        const days = form.retentionDays;
        const spamDays = Math.min(form.retentionDays ?? Infinity, form.spamRetentionDays ?? Infinity);
        let n = 0;
        // Literal flags (not bound parameters), as the list queries use them, so the (form, is_spam, created_at) index serves.
        if (days !== null) n += await purgeWhere(form.id, and(sql`${submissions.isSpam} = 0`, lt(submissions.createdAt, now - days * DAY_MS))!, stopped);
        if (Number.isFinite(spamDays))
          n += await purgeWhere(form.id, and(sql`${submissions.isSpam} = 1`, lt(submissions.createdAt, now - spamDays * DAY_MS))!, stopped);
        if (n > 0) {
          counts[form.id] = n;
          await rebuildFieldLists([form.id]);
        }
      }
      addCounts(counts, await purgeUnconfirmed(now, stopped));
      // The purged rows' bytes leave the WAL too (secure_delete has zeroed them in the pages).
      if (Object.keys(counts).length > 0) await store.checkpoint();
      return counts;
    },

    /**
     * Erases every submission of the principal's account and mode in which a field's value is `email`
     * (trimmed, case-insensitive; in an array too), with its files. With dryRun, only counts them.
     */
    async erase(principal: Principal, body: unknown): Promise<Erasure> {
      const input = parseBody(await eraseSchema(), body);
      const address = input.email.toLowerCase();
      // A cheap first pass in SQL: the address must appear somewhere in the stored JSON text (mentionedInSql).
      const prefilter = mentionedInSql(submissions.data, address, "json");
      const owned = await store.db
        .select({ id: forms.id })
        .from(forms)
        .where(and(eq(forms.accountId, principal.accountId), eq(forms.mode, principal.mode)));
      const matched: string[] = [];
      const found: CountByForm = {};
      for (const form of owned) {
        let after: { createdAt: number; id: string } | null = null;
        for (;;) {
          const cursor: SQL | undefined = after
            ? or(gt(submissions.createdAt, after.createdAt), and(eq(submissions.createdAt, after.createdAt), gt(submissions.id, after.id)))
            : undefined;
          const batch: { id: string; data: string; createdAt: number }[] = await store.db
            .select({ id: submissions.id, data: submissions.data, createdAt: submissions.createdAt })
            .from(submissions)
            .where(and(eq(submissions.formId, form.id), prefilter, cursor))
            .orderBy(asc(submissions.createdAt), asc(submissions.id))
            .limit(SCAN_BATCH);
          for (const row of batch) {
            if (mentions(JSON.parse(row.data), address)) {
              matched.push(row.id);
              found[form.id] = (found[form.id] ?? 0) + 1;
            }
          }
          if (batch.length < SCAN_BATCH) break;
          after = batch[batch.length - 1]!;
        }
      }
      // The other places an address can live (src/services/personal-data.ts): a submission one of them ties to
      // the address goes too, even when no field of its own holds it (an address given only as `_replyto`).
      const more = new Set<string>();
      for (const place of PERSONAL_DATA) for (const id of (await place.find?.(store.db, principal, address)) ?? []) more.add(id);
      for (const id of matched) more.delete(id);
      if (more.size > 0) {
        const rows = await store.db
          .select({ id: submissions.id, formId: submissions.formId })
          .from(submissions)
          .where(inArray(submissions.id, [...more]));
        for (const row of rows) {
          matched.push(row.id);
          found[row.formId] = (found[row.formId] ?? 0) + 1;
        }
      }
      if (input.dryRun) return { erased: matched.length, forms: found, dryRun: true };
      // What the erased submissions taught the learning filter goes with them (a purge keeps what was learned).
      const erased = await deleteInBatches(matched, { forgetMarksOf: principal.accountId });
      await store.write(async (tx) => {
        for (const place of PERSONAL_DATA) await place.scrub?.(tx, principal, address);
      });
      // Nothing of the erased rows left in the WAL either: secure_delete has zeroed them in the file's pages.
      await store.checkpoint();
      const total = Object.values(erased).reduce((a, b) => a + b, 0);
      // The log says that a person's data went, not whose: the address is what was erased.
      if (total > 0) {
        const summary = `Erased ${counted(total, "submission")} of one person in ${counted(Object.keys(erased).length, "form")}.`;
        await store.write((tx) => recordActivity(tx, principal, "submissions.erase", principal.mode, summary));
      }
      return { erased: Object.values(erased).reduce((a, b) => a + b, 0), forms: erased, dryRun: false };
    },
  };
}

export type RetentionService = ReturnType<typeof retentionService>;
