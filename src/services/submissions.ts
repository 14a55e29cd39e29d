import { and, asc, count, desc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Db, Store } from "../db/client.ts";
import { memoized, preparedOn } from "../db/prepared.ts";
import { forms, submissions, type FormRow, type SubmissionRow } from "../db/schema.ts";
import type { ExportFormat, Principal, SpamReason, Submission } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { iso } from "../lib/time.ts";
import { lazySchema, parseBody } from "../lib/validate.ts";
import { mayHoldFiles, withFilePaths } from "./submissions/export-rows.ts";
import { attachFiles, insertFiles, type FilesService } from "./files.ts";
import { fieldsOf, type FormsService } from "./forms.ts";
import type { NotificationRequest, NotificationsService } from "./notifications.ts";
import { oneRequestReceiver, type ReceivingForm } from "./receive-batch.ts";
import type { WebhooksService } from "./webhooks.ts";
import { exportText } from "./submission-export.ts";
import { awaitsOptIn, confirmationOf, confirmationStatement, type OptInLinks } from "./confirmations.ts";
import { COLUMNS, countInDay, FILTER_SQL, FILTERS, readPage, through, type Filter, type Order } from "./submission-pages.ts";

export { FILTERS, type Filter, type Order };

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
  /** Text that some value of the data must contain, ignoring case (`q`); undefined or null: no search. */
  search?: string | null;
  order: Order;
}

export interface ListQuery extends SubmissionQuery {
  limit: number;
  offset: number;
  /** Keyset paging: the id of the last submission of the previous page (its nextCursor), or null. */
  after: string | null;
}

type Flags = Pick<SubmissionRow, "isRead" | "isStarred" | "isSpam"> & { unconfirmed?: boolean };
type Counted = Flags & Pick<SubmissionRow, "createdAt">;

/** How much one submission with these flags adds to each of the form's counters. */
export function counterShare(flags: Flags) {
  // A submission waiting for its double opt-in link counts nowhere until it is confirmed.
  const kept = flags.isSpam || flags.unconfirmed ? 0 : 1;
  return {
    submissionCount: kept,
    spamCount: flags.isSpam ? 1 : 0,
    unreadCount: kept && !flags.isRead ? 1 : 0,
    starredCount: kept && flags.isStarred ? 1 : 0,
  };
}

/** Adds `sign` times the submission's share to the form's counters and to those of its day. */
export async function adjustCounters(tx: Db, formId: string, submission: Counted, sign: 1 | -1, extra: Partial<FormRow> = {}) {
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
  spamReason: row.isSpam ? ((row.spamReason as SpamReason | null) ?? null) : null,
  ...(row.unconfirmed || row.confirmedAt !== null ? optInState(row) : {}),
});

/** A double opt-in submission's state: when and where its link was opened (null while it waits). */
const optInState = (row: SubmissionRow) => ({
  confirmedAt: row.confirmedAt === null ? null : iso(row.confirmedAt),
  confirmedFrom: row.confirmedFrom,
});

/** The body of PATCH .../submissions/{sid} (the OpenAPI document is generated from it too). */
export const patchSchema = lazySchema((z) =>
  z.strictObject({
    isRead: z.boolean({ error: "isRead must be true or false." }).optional(),
    isStarred: z.boolean({ error: "isStarred must be true or false." }).optional(),
    isSpam: z.boolean({ error: "isSpam must be true or false." }).optional(),
  }),
);

const EXPORT_BATCH = 500;
// What the export's statement reads: every column but the form's id, a string each row would carry for nothing.
const { formId: _formId, ...EXPORTED } = COLUMNS;

// The statements of the public write, prepared once per connection: see preparedOn.
const formForWrite = preparedOn((db) =>
  db
    .select({
      id: forms.id,
      name: forms.name,
      slug: forms.slug,
      mode: forms.mode,
      notificationEmail: forms.notificationEmail,
      fields: forms.fields,
      lastSubmissionAt: forms.lastSubmissionAt,
      confirmation: forms.confirmation,
    })
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
      spamReason: sql.placeholder("spamReason"),
      unconfirmed: sql.placeholder("unconfirmed"),
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
  return { fields: await rebuiltFields(tx, gone.formId) };
}

/** The form's field list rebuilt from its submissions, as JSON: every name, in order of first appearance. */
export async function rebuiltFields(tx: Db, formId: string): Promise<string> {
  const rows: { name: string }[] = await tx.all(sql`
    SELECT name FROM (
      SELECT j.key AS name, row_number() OVER (ORDER BY s.created_at, s.id, j.id) AS position
      FROM ${submissions} s, json_each(s.data) j WHERE s.form_id = ${formId}
    ) GROUP BY name ORDER BY min(position)`);
  return JSON.stringify(rows.map((row) => row.name));
}

/** Submissions: the owner's lists, export and flags, and the store behind the public endpoint. */
export function submissionsService(
  store: Store,
  formsService: FormsService,
  notificationsService: NotificationsService,
  filesService: FilesService,
  webhooksService?: WebhooksService,
  optIn?: OptInLinks,
) {
  const where = (formId: string, query: SubmissionQuery) =>
    and(
      eq(submissions.formId, formId),
      FILTER_SQL[query.filter],
      query.since === null ? undefined : gt(submissions.createdAt, query.since),
      query.search
        ? sql`EXISTS (SELECT 1 FROM json_tree(${submissions.data}) j WHERE j.atom IS NOT NULL AND instr(lower(j.atom), lower(${query.search})) > 0)`
        : undefined,
    );

  const ordering = (order: Order) =>
    order === "asc" ? [asc(submissions.createdAt), asc(submissions.id)] : [desc(submissions.createdAt), desc(submissions.id)];

  /** Rows past a cursor (the previous page's last submission) in the order of the list. */
  const afterCursor = (order: Order, cursor: { createdAt: number; id: string } | null): SQL | undefined =>
    cursor === null
      ? undefined
      : order === "asc"
        ? sql`(${submissions.createdAt}, ${submissions.id}) > (${cursor.createdAt}, ${cursor.id})`
        : sql`(${submissions.createdAt}, ${submissions.id}) < (${cursor.createdAt}, ${cursor.id})`;

  /** The cursor a page's `after` names: a submission of this form, else the parameter is refused. */
  async function cursorAt(formId: string, id: string): Promise<{ createdAt: number; id: string }> {
    const [row] = await store.db
      .select({ createdAt: submissions.createdAt })
      .from(submissions)
      .where(and(eq(submissions.formId, formId), eq(submissions.id, id)));
    if (!row)
      throw new ApiError("invalid_parameter", `after must be the id of a submission of this form (the nextCursor of a page); ${id} is not one.`, {
        field: "after",
      });
    return { createdAt: row.createdAt, id };
  }

  const receiveInOneRequest = oneRequestReceiver(store, {
    readForm: (formId) => formForWrite(store.db).get({ id: formId }),
    toSubmission,
    notifications: notificationsService,
    webhooks: webhooksService,
    optIn,
  });

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
      let rows: SubmissionRow[];
      let total: number;
      if (query.search || query.filter === "unconfirmed") {
        // A search reads the rows that match it: no counter knows how many hold a piece of text.
        rows = await store.db
          .select(COLUMNS)
          .from(through(query.filter))
          .where(and(where(form.id, query), afterCursor(query.order, query.after === null ? null : await cursorAt(form.id, query.after))))
          .orderBy(...ordering(query.order))
          .limit(query.limit + 1)
          .offset(query.offset);
        const [counted] = await store.db.select({ n: count() }).from(through(query.filter)).where(where(form.id, query));
        total = counted?.n ?? 0;
      } else {
        ({ rows, total } = await readPage(store.db, form, query));
      }
      const page = rows.slice(0, query.limit);
      const hasMore = rows.length > query.limit;
      return {
        submissions: page.map(toSubmission),
        fields: fieldsOf(form),
        pagination: { limit: query.limit, offset: query.offset, total, hasMore, nextCursor: hasMore ? page[page.length - 1]!.id : null },
      };
    },

    /**
     * Every matching submission, memory flat whatever the count: `chunks` writes the export's text straight
     * from the stored rows (what the API, the CLI and the dashboard send); `submissions` gives the same as the
     * API's Submission objects, in pages by key: the reference that text is held to (test/unit/export-text.test.ts).
     */
    async export(principal: Principal, formRef: string, query: SubmissionQuery) {
      const form = await formsService.findRow(principal, formRef);
      const fields = fieldsOf(form);
      const page = (after: { createdAt: number; id: string } | null, limit: number): Promise<SubmissionRow[]> =>
        store.db
          .select(COLUMNS)
          .from(through(query.filter))
          .where(and(where(form.id, query), afterCursor(query.order, after)))
          .orderBy(...ordering(query.order))
          .limit(limit);
      async function* rows(): AsyncGenerator<Submission> {
        let after: { createdAt: number; id: string } | null = null;
        for (;;) {
          const batch = await page(after, EXPORT_BATCH);
          // Only a batch that shows file objects asks which of them are stored files (most forms take none).
          const stored = await filesService.storedFiles(batch.filter((row) => mayHoldFiles(row.data)).map((row) => row.id));
          for (const row of batch) {
            const submission = toSubmission(row);
            const own = stored.get(row.id);
            yield own ? { ...submission, data: withFilePaths(submission.data, form.id, row.id, own) } : submission;
          }
          if (batch.length < EXPORT_BATCH) return;
          const last: SubmissionRow = batch[batch.length - 1]!;
          after = { createdAt: last.createdAt, id: last.id };
        }
      }
      const source = {
        store,
        formId: form.id,
        fields,
        spamReason: query.filter === "spam",
        query: () =>
          store.db
            .select(EXPORTED)
            .from(through(query.filter))
            .where(where(form.id, query))
            .orderBy(...ordering(query.order)),
        page,
        storedFiles: filesService.storedFiles,
      };
      return {
        form: formsService.toForm(form),
        fields,
        submissions: rows(),
        /** The export's text; an export of spam has a spamReason column in CSV unless `spamReason` says otherwise. */
        chunks: (format: ExportFormat, options: { spamReason?: boolean } = {}) =>
          exportText({ ...source, spamReason: options.spamReason ?? source.spamReason }, format),
      };
    },

    async get(principal: Principal, formRef: string, submissionId: string): Promise<Submission> {
      const form = await formsService.findRow(principal, formRef);
      return toSubmission(await findRow(form.id, submissionId));
    },

    /** Sets any of isRead, isStarred, isSpam, keeping the form's counters true. */
    async update(principal: Principal, formRef: string, submissionId: string, body: unknown): Promise<Submission> {
      const patch = parseBody(await patchSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      return store.write(async (tx) => {
        const [before] = await tx
          .select()
          .from(submissions)
          .where(and(eq(submissions.formId, form.id), eq(submissions.id, submissionId)));
        if (!before) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
        const after = { ...before, ...patch };
        // The owner's word is the reason once they mark it spam; a submission moved out of spam has none.
        if (patch.isSpam === true && !before.isSpam) after.spamReason = "owner";
        if (patch.isSpam === false) after.spamReason = null;
        await tx
          .update(submissions)
          .set({ ...patch, spamReason: after.spamReason })
          .where(eq(submissions.id, before.id));
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
     * Stores a posted submission with its files (UploadedFiles in `data`), brings the form's counters and
     * field list up to date and, unless it is spam, writes its notification (`_subject`, `_replyto` in
     * `notification`), all in one transaction.
     */
    async receive(
      formRef: string | ReceivingForm,
      data: Record<string, unknown>,
      flags: { isSpam: boolean; spamReason?: SpamReason; notification?: NotificationRequest },
    ): Promise<Submission> {
      // The opt-in link's key is read (made, the first time) before the write, and only for a form that needs it.
      if (typeof formRef === "string" || confirmationOf(formRef)?.doubleOptIn) await optIn?.ready();
      if (store.driver === "libsql") return receiveInOneRequest(formRef, data, flags);
      const formId = typeof formRef === "string" ? formRef : formRef.id;
      const { submission, queued, events } = await store.write(async (tx) => {
        const form = await formForWrite(tx).get({ id: formId });
        if (!form) throw new ApiError("form_not_found", "This form no longer exists.");
        // A form's createdAt values are unique and rise in the order submissions are stored, so that a script
        // polling with since=<the last createdAt it saw> never misses one stored later in the same millisecond.
        const now = Math.max(Date.now(), form.lastSubmissionAt + 1);
        const attached = attachFiles(data, now);
        const row: SubmissionRow = {
          id: newId("submission", now),
          formId,
          data: JSON.stringify(attached.data),
          createdAt: now,
          isRead: false,
          isStarred: false,
          isSpam: flags.isSpam,
          spamReason: flags.isSpam ? (flags.spamReason ?? "honeypot") : null,
          unconfirmed: awaitsOptIn(form, flags.isSpam),
          confirmedAt: null,
          confirmedFrom: null,
        };
        await insertSubmission(tx).run(row);
        await insertFiles(tx, formId, row.id, attached.files);
        const seen = knownFields(form.fields);
        const added = Object.keys(data).filter((name) => !seen.has(name));
        const fields = added.length > 0 ? JSON.stringify([...seen, ...added]) : null;
        const share = counterShare(row);
        await countReceived(tx).run({ id: formId, kept: share.submissionCount, spam: share.spamCount, at: now, fields });
        await countInDay(tx, formId, now, share, 1);
        const confirming = confirmationStatement(tx, form, row, data, optIn ? optIn.link : null);
        if (confirming) await confirming;
        // Spam is never mailed: a honeypot catch gets no notification at all; nor is one awaiting its opt-in (until then).
        const queued = share.submissionCount === 1 && (await notificationsService.queue(tx, form, row, flags.notification ?? {}));
        const submission = toSubmission(row);
        // Nor is spam ever sent to a webhook: the event is written with the submission, or not at all.
        const events = share.submissionCount === 1 && webhooksService !== undefined && (await webhooksService.queue(tx, form, submission, now));
        return { submission, queued: queued || confirming !== null, events };
      });
      // Only now is the notification committed, so the sender cannot look for it too early.
      if (queued) notificationsService.announce();
      if (events) webhooksService?.announce();
      return submission;
    },
  };
}
