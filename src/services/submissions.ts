import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Db, Store } from "../db/client.ts";
import { memoized, preparedOn } from "../db/prepared.ts";
import { forms, submissions, type FormRow, type SubmissionRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { ExportFormat } from "../lib/export.ts";
import { newId } from "../lib/ids.ts";
import { iso, parseIsoDate } from "../lib/time.ts";
import { parseBody, parsePaging } from "../lib/validate.ts";
import { fieldsOf, type FormsService } from "./forms.ts";
import type { NotificationRequest, NotificationsService } from "./notifications.ts";
import type { Principal } from "./principal.ts";
import { exportTextChunks, storedBatches } from "./submission-export.ts";
import { countInDay, FILTERS, readPage, type Filter, type Order } from "./submission-pages.ts";

export { FILTERS, type Filter, type Order };

export interface Submission {
  id: string;
  data: Record<string, unknown>;
  createdAt: string;
  isRead: boolean;
  isStarred: boolean;
  isSpam: boolean;
}

export interface SubmissionPage {
  submissions: Submission[];
  fields: string[];
  /** nextCursor: the id to pass as `after` for the next page, or null on the last. */
  pagination: { limit: number; offset: number; total: number; hasMore: boolean; nextCursor: string | null };
}


/** What selects submissions: the export takes all but limit and offset. */
export interface SubmissionQuery {
  since: number | null;
  filter: Filter;
  order: Order;
}

export interface ListQuery extends SubmissionQuery {
  limit: number;
  offset: number;
  /** Keyset paging: the id of the last submission of the previous page (its nextCursor), or null. */
  after: string | null;
}

const invalid = (field: string, message: string) => new ApiError("invalid_parameter", message, { field });

/** Reads list parameters from strings (a query string or CLI flags): out of range or of type is an error, never clamped. */
export function parseListQuery(params: Record<string, string | undefined>, { paged = true } = {}): ListQuery {
  const { since, order = "desc", filter = "all", after } = params;
  const { limit, offset } = paged ? parsePaging(params) : { limit: 50, offset: 0 };
  if (order !== "asc" && order !== "desc") throw invalid("order", `order must be asc or desc, not "${order}".`);
  if (!(FILTERS as readonly string[]).includes(filter)) {
    throw invalid("filter", `filter must be one of ${FILTERS.join(", ")}, not "${filter}".`);
  }
  let sinceMs: number | null = null;
  if (since !== undefined) {
    sinceMs = parseIsoDate(since);
    if (sinceMs === null) throw invalid("since", `since must be an ISO 8601 date or date-time such as 2026-11-22T12:00:00Z, not "${since}".`);
  }
  if (after !== undefined && paged) {
    if (!/^sub_[0-9a-z]{22}$/.test(after)) throw invalid("after", `after must be a submission id (the nextCursor of a page), not "${after}".`);
    if (offset !== 0) throw invalid("offset", "offset cannot be combined with after: a cursor already says where the page starts.");
  }
  return { limit, offset, since: sinceMs, order, filter: filter as Filter, after: paged ? (after ?? null) : null };
}

type Flags = Pick<SubmissionRow, "isRead" | "isStarred" | "isSpam">;
type Counted = Flags & Pick<SubmissionRow, "createdAt">;

/** How much one submission with these flags adds to each of the form's counters. */
function counterShare(flags: Flags) {
  const kept = flags.isSpam ? 0 : 1;
  return {
    submissionCount: kept,
    spamCount: 1 - kept,
    unreadCount: kept && !flags.isRead ? 1 : 0,
    starredCount: kept && flags.isStarred ? 1 : 0,
  };
}

/** Adds `sign` times the submission's share to the form's counters and to those of its day. */
async function adjustCounters(tx: Db, formId: string, submission: Counted, sign: 1 | -1, extra: Partial<FormRow> = {}) {
  const share = counterShare(submission);
  await countInDay(tx, formId, submission.createdAt, share, sign);
  await tx
    .update(forms)
    .set({
      submissionCount: sql`${forms.submissionCount} + ${sign * share.submissionCount}`,
      spamCount: sql`${forms.spamCount} + ${sign * share.spamCount}`,
      unreadCount: sql`${forms.unreadCount} + ${sign * share.unreadCount}`,
      starredCount: sql`${forms.starredCount} + ${sign * share.starredCount}`,
      ...extra,
    })
    .where(eq(forms.id, formId));
}

export const toSubmission = (row: SubmissionRow): Submission => ({
  id: row.id,
  data: JSON.parse(row.data) as Record<string, unknown>,
  createdAt: iso(row.createdAt),
  isRead: row.isRead,
  isStarred: row.isStarred,
  isSpam: row.isSpam,
});

const patchSchema = z.strictObject({
  isRead: z.boolean({ error: "isRead must be true or false." }).optional(),
  isStarred: z.boolean({ error: "isStarred must be true or false." }).optional(),
  isSpam: z.boolean({ error: "isSpam must be true or false." }).optional(),
});

// The statements of the public write, prepared once per connection: see preparedOn.
const formForWrite = preparedOn((db) =>
  db
    .select({ id: forms.id, name: forms.name, mode: forms.mode, notificationEmail: forms.notificationEmail, fields: forms.fields, lastSubmissionAt: forms.lastSubmissionAt })
    .from(forms)
    .where(eq(forms.id, sql.placeholder("id")))
    .prepare(),
);
const insertSubmission = preparedOn((db) =>
  db
    .insert(submissions)
    .values({
      id: sql.placeholder("id"),
      formId: sql.placeholder("formId"),
      data: sql.placeholder("data"),
      createdAt: sql.placeholder("createdAt"),
      isRead: sql.placeholder("isRead"),
      isStarred: sql.placeholder("isStarred"),
      isSpam: sql.placeholder("isSpam"),
    })
    .prepare(),
);
/** A new submission's share of the counters, its time as the form's newest, and (when it brought new names) the field list. */
const countReceived = preparedOn((db) =>
  db
    .update(forms)
    .set({
      submissionCount: sql`${forms.submissionCount} + ${sql.placeholder("kept")}`,
      spamCount: sql`${forms.spamCount} + ${sql.placeholder("spam")}`,
      unreadCount: sql`${forms.unreadCount} + ${sql.placeholder("kept")}`,
      lastSubmissionAt: sql`${sql.placeholder("at")}`,
      fields: sql`coalesce(${sql.placeholder("fields")}, ${forms.fields})`,
    })
    .where(eq(forms.id, sql.placeholder("id")))
    .prepare(),
);

const knownFields = memoized((text: string) => new Set(JSON.parse(text) as string[]));

/**
 * The form's field list once `gone` is deleted: "every field name of the form's submissions, in order of
 * first appearance". It changes only when `gone` was the first (or only) submission to have one of its
 * names, so the whole list is rebuilt only then; usually each name is found in an older submission at once.
 */
async function fieldsAfterRemoving(tx: Db, gone: SubmissionRow): Promise<Partial<FormRow>> {
  const names = Object.keys(JSON.parse(gone.data) as Record<string, unknown>);
  let introducedOne = false;
  for (const name of names) {
    const older = await tx.all(sql`
      SELECT 1 FROM ${submissions} s, json_each(s.data) j
      WHERE s.form_id = ${gone.formId} AND (s.created_at, s.id) < (${gone.createdAt}, ${gone.id}) AND j.key = ${name}
      LIMIT 1`);
    if (older.length === 0) {
      introducedOne = true;
      break;
    }
  }
  if (!introducedOne) return {};
  const rows: { name: string }[] = await tx.all(sql`
    SELECT name FROM (
      SELECT j.key AS name, row_number() OVER (ORDER BY s.created_at, s.id, j.id) AS position
      FROM ${submissions} s, json_each(s.data) j WHERE s.form_id = ${gone.formId}
    ) GROUP BY name ORDER BY min(position)`);
  return { fields: JSON.stringify(rows.map((row) => row.name)) };
}

/** Submissions: the owner's lists, export and flags, and the store behind the public endpoint. */
export function submissionsService(store: Store, formsService: FormsService, notificationsService: NotificationsService) {
  async function findRow(formId: string, submissionId: string): Promise<SubmissionRow> {
    const [row] = await store.db
      .select()
      .from(submissions)
      .where(and(eq(submissions.formId, formId), eq(submissions.id, submissionId)));
    if (!row) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
    return row;
  }

  return {
    /** One page of a form's submissions, with the form's field names and the paging figures. */
    async list(principal: Principal, formRef: string, query: ListQuery): Promise<SubmissionPage> {
      const form = await formsService.findRow(principal, formRef);
      // One row more than asked tells whether another page exists, whatever the total says under concurrent writes.
      const { rows, total } = await readPage(store.db, form, query);
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        submissions: page.map(toSubmission),
        fields: fieldsOf(form),
        pagination: { limit: query.limit, offset: query.offset, total, hasMore, nextCursor: hasMore ? page[page.length - 1]!.id : null },
      };
    },

    /**
     * Every matching submission, streamed so that memory stays flat whatever the count: `chunks(format)` as
     * the export's text, `submissions` as the API shows them.
     */
    async export(principal: Principal, formRef: string, query: SubmissionQuery) {
      const form = await formsService.findRow(principal, formRef);
      async function* rows(): AsyncGenerator<Submission> {
        for await (const batch of storedBatches(store, form.id, query)) for (const row of batch) yield toSubmission(row);
      }
      const fields = fieldsOf(form);
      return {
        form: formsService.toForm(form),
        fields,
        submissions: rows(),
        chunks: (format: ExportFormat) => exportTextChunks(store, form.id, query, format, fields),
      };
    },

    async get(principal: Principal, formRef: string, submissionId: string): Promise<Submission> {
      const form = await formsService.findRow(principal, formRef);
      return toSubmission(await findRow(form.id, submissionId));
    },

    /** Sets any of isRead, isStarred, isSpam, keeping the form's counters true. */
    async update(principal: Principal, formRef: string, submissionId: string, body: unknown): Promise<Submission> {
      const patch = parseBody(patchSchema, body);
      const form = await formsService.findRow(principal, formRef);
      return store.write(async (tx) => {
        const [before] = await tx
          .select()
          .from(submissions)
          .where(and(eq(submissions.formId, form.id), eq(submissions.id, submissionId)));
        if (!before) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
        const after = { ...before, ...patch };
        await tx.update(submissions).set(patch).where(eq(submissions.id, before.id));
        await adjustCounters(tx, form.id, before, -1);
        await adjustCounters(tx, form.id, after, 1);
        return toSubmission(after);
      });
    },

    async remove(principal: Principal, formRef: string, submissionId: string): Promise<void> {
      const form = await formsService.findRow(principal, formRef);
      await store.write(async (tx) => {
        const [gone] = await tx
          .delete(submissions)
          .where(and(eq(submissions.formId, form.id), eq(submissions.id, submissionId)))
          .returning();
        if (!gone) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
        await adjustCounters(tx, form.id, gone, -1, await fieldsAfterRemoving(tx, gone));
      });
    },

    /**
     * Stores a posted submission, brings the form's counters and field list up to date and, unless it is
     * spam, writes its notification (`_subject`, `_replyto` in `notification`), all in one transaction.
     */
    async receive(formId: string, data: Record<string, unknown>, flags: { isSpam: boolean; notification?: NotificationRequest }): Promise<Submission> {
      const { submission, queued } = await store.write(async (tx) => {
        const form = await formForWrite(tx).get({ id: formId });
        if (!form) throw new ApiError("form_not_found", "This form no longer exists.");
        // A form's createdAt values are unique and rise in the order submissions are stored, so that a script
        // polling with since=<the last createdAt it saw> never misses one stored later in the same millisecond.
        const now = Math.max(Date.now(), form.lastSubmissionAt + 1);
        const row: SubmissionRow = { id: newId("submission", now), formId, data: JSON.stringify(data), createdAt: now, isRead: false, isStarred: false, isSpam: flags.isSpam };
        await insertSubmission(tx).run(row);
        const seen = knownFields(form.fields);
        const added = Object.keys(data).filter((name) => !seen.has(name));
        const fields = added.length > 0 ? JSON.stringify([...seen, ...added]) : null;
        await countReceived(tx).run({ id: formId, kept: flags.isSpam ? 0 : 1, spam: flags.isSpam ? 1 : 0, at: now, fields });
        await countInDay(tx, formId, now, counterShare(row), 1);
        // Spam is never mailed: a honeypot catch gets no notification at all.
        const queued = !flags.isSpam && (await notificationsService.queue(tx, form, row, flags.notification ?? {}));
        return { submission: toSubmission(row), queued };
      });
      // Only now is the notification committed, so the sender cannot look for it too early.
      if (queued) notificationsService.announce();
      return submission;
    },
  };
}

export type SubmissionsService = ReturnType<typeof submissionsService>;
