import { and, asc, count, desc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { preparedOn } from "../../db/prepared.ts";
import { forms, submissions, type SubmissionRow } from "../../db/schema.ts";
import type { ExportFormat, Principal, Submission } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { lazySchema, parseBody } from "../../lib/validate.ts";
import { recordActivity } from "../people/activity.ts";
import { mayHoldFiles, withFilePaths } from "./export-rows.ts";
import type { FilesService } from "../files.ts";
import { fieldsOf, type FormsService } from "../forms.ts";
import type { NotificationsService } from "../outbox/notifications.ts";
import { addShare } from "./counters.ts";
import { fieldsAfterRemoving } from "./field-list.ts";
import { announce, keep, type KeepDeps, routingOf } from "./keep.ts";
import { toSubmission } from "./shown.ts";
import type { ReceiveFlags, ReceivingForm } from "./write.ts";
import { submissionWriter } from "./writer.ts";
import type { WebhooksService } from "../outbox/webhooks.ts";
import type { Mark, SpamFilterService } from "../spam/filter.ts";
import { exportText } from "./export-text.ts";
import { awaitsOptIn, confirmationOf, type OptInLinks } from "../outbox/confirmations.ts";
import { COLUMNS, FILTERS, listSql, PAYMENT_LISTS, readPage, through, UNCOUNTED, type Filter, type Order, type PaymentList } from "./pages.ts";

export { FILTERS, PAYMENT_LISTS, toSubmission, type Filter, type Order, type PaymentList };

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
  /** Only submissions whose payment is in this state (`payment`); undefined or null: any. */
  payment?: PaymentList | null;
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

/** The body of PATCH .../submissions/{sid} (the OpenAPI document is generated from it too). */
export const patchSchema = lazySchema((z) =>
  z.strictObject({
    isRead: z.boolean({ error: "isRead must be true or false." }).optional(),
    isStarred: z.boolean({ error: "isStarred must be true or false." }).optional(),
    isSpam: z.boolean({ error: "isSpam must be true or false." }).optional(),
  }),
);

const EXPORT_BATCH = 500;
// What the export's statement reads: the columns an exported row shows (a StoredRow), nothing more. Each column
// read is a value made per row; the filter's tokens of a post alone can be longer than its data.
const EXPORTED = {
  id: COLUMNS.id,
  data: COLUMNS.data,
  createdAt: COLUMNS.createdAt,
  isRead: COLUMNS.isRead,
  isStarred: COLUMNS.isStarred,
  isSpam: COLUMNS.isSpam,
  spamReason: COLUMNS.spamReason,
  paymentStatus: COLUMNS.paymentStatus,
  paymentAmount: COLUMNS.paymentAmount,
  paymentCurrency: COLUMNS.paymentCurrency,
  paymentSession: COLUMNS.paymentSession,
  paymentIntent: COLUMNS.paymentIntent,
} satisfies Record<string, SQL>;

// The form as the write needs it, when a caller names it by id (the dashboard's test post).
const formForWrite = preparedOn((db) =>
  db
    .select({
      id: forms.id,
      name: forms.name,
      slug: forms.slug,
      mode: forms.mode,
      notificationEmail: forms.notificationEmail,
      lastSubmissionAt: forms.lastSubmissionAt,
      confirmation: forms.confirmation,
    })
    .from(forms)
    .where(eq(forms.id, sql.placeholder("id")))
    .prepare(),
);

const MARKS: Record<string, [string, string]> = { isRead: ["read", "unread"], isStarred: ["starred", "not starred"], isSpam: ["spam", "not spam"] };
/** A patch in the activity log's words: "starred, read" (every flag it sets, even to its current value, as it trains the filter). */
const marks = (patch: Record<string, boolean | undefined>) =>
  Object.entries(patch)
    .filter(([, value]) => value !== undefined)
    .map(([flag, value]) => MARKS[flag]![value ? 0 : 1])
    .join(", ") || "unchanged";
/** Submissions: the owner's lists, export and flags, and the store behind the public endpoint. */
export function submissionsService(
  store: Store,
  formsService: FormsService,
  notificationsService: NotificationsService,
  filesService: FilesService,
  webhooksService?: WebhooksService,
  spamFilter?: SpamFilterService,
  optIn?: OptInLinks,
) {
  const where = (formId: string, query: SubmissionQuery) =>
    and(
      eq(submissions.formId, formId),
      listSql(query.filter, query.payment),
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

  const keeping: KeepDeps = { notifications: notificationsService, outbox: webhooksService, optIn };
  const write = submissionWriter(store, keeping);

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
      if (query.search || UNCOUNTED.includes(query.filter) || query.payment) {
        // A search reads the rows that match it: no counter knows how many hold a piece of text (nor a payment's state).
        rows = await store.db
          .select(COLUMNS)
          .from(through(query.filter, query.payment))
          .where(and(where(form.id, query), afterCursor(query.order, query.after === null ? null : await cursorAt(form.id, query.after))))
          .orderBy(...ordering(query.order))
          .limit(query.limit + 1)
          .offset(query.offset);
        const [counted] = await store.db.select({ n: count() }).from(through(query.filter, query.payment)).where(where(form.id, query));
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
          .from(through(query.filter, query.payment))
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
        payment: form.payment !== null,
        query: () =>
          store.db
            .select(EXPORTED)
            .from(through(query.filter, query.payment))
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

    /**
     * Sets any of isRead, isStarred, isSpam, keeping the form's counters true. An isSpam given (even the value it
     * has) is the owner's mark: the account's filter learns it; moved out of spam, the submission sends, once,
     * the notification and webhook events its spam verdict held back. Recorded in the activity log unless
     * `record` is false (a bulk action records itself once; opening a submission is reading it).
     */
    async update(principal: Principal, formRef: string, submissionId: string, body: unknown, { record = true } = {}): Promise<Submission> {
      const patch = parseBody(await patchSchema(), body);
      const form = await formsService.findRow(principal, formRef);
      // A submission out of spam may get its double opt-in link: its key is read before the write.
      if (patch.isSpam === false && confirmationOf(form)?.doubleOptIn) await optIn?.ready();
      const { submission, queued } = await store.write(async (tx) => {
        const [before] = await tx
          .select()
          .from(submissions)
          .where(and(eq(submissions.formId, form.id), eq(submissions.id, submissionId)));
        if (!before) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
        const after = { ...before, ...patch };
        // The owner's word is the reason once they mark it spam; a submission moved out of spam has none.
        if (patch.isSpam === true && !before.isSpam) after.spamReason = "owner";
        if (patch.isSpam === false) after.spamReason = null;
        const mark: Mark | null = patch.isSpam === undefined ? null : patch.isSpam ? "spam" : "ham";
        if (mark && spamFilter) {
          const data = JSON.parse(before.data) as Record<string, unknown>;
          await spamFilter.learn(tx, form.accountId, data, before.trained as Mark | null, mark);
          after.trained = mark;
        }
        const release = before.isSpam && patch.isSpam === false && before.held !== null;
        // Released on a double opt-in form, it waits for its link as a post that arrived clean does, and what its
        // notification asked for stays held until then.
        // One whose link was opened already (while it was spam) waits for nothing.
        if (release && awaitsOptIn(form, false) && before.confirmedAt === null) after.unconfirmed = true;
        else if (release && !before.unpaid) after.held = null;
        await tx
          .update(submissions)
          .set({ ...patch, spamReason: after.spamReason, trained: after.trained, held: after.held, unconfirmed: after.unconfirmed })
          .where(eq(submissions.id, before.id));
        // Its counters follow; out of spam, it sends, once, what its verdict held back.
        const queued = await keep(tx, [{ form, before, after, at: Date.now() }], keeping);
        if (record) await recordActivity(tx, principal, "submission.update", before.id, `Marked a submission of "${form.name}" ${marks(patch)}.`);
        return { submission: toSubmission(after), queued };
      });
      announce(keeping, queued);
      return submission;
    },

    /** Deletes one submission, keeping the form's counters true; recorded in the activity log unless `record` is false. */
    async remove(principal: Principal, formRef: string, submissionId: string, { record = true } = {}): Promise<void> {
      const form = await formsService.findRow(principal, formRef);
      await store.write(async (tx) => {
        const [gone] = await tx
          .delete(submissions)
          .where(and(eq(submissions.formId, form.id), eq(submissions.id, submissionId)))
          .returning();
        if (!gone) throw new ApiError("not_found", `No submission ${submissionId} in this form.`);
        await addShare(tx, gone, -1);
        const fields = await fieldsAfterRemoving(tx, gone);
        if (fields !== null) await tx.update(forms).set({ fields }).where(eq(forms.id, form.id));
        if (record) await recordActivity(tx, principal, "submission.delete", gone.id, `Deleted a submission of "${form.name}".`);
      });
    },

    /**
     * Stores a posted submission with its files (UploadedFiles in `data`), brings the form's counters and
     * field list up to date and, unless it is spam, writes its notification (`_subject`, `_replyto` in
     * `notification`), all in one transaction.
     */
    async receive(formRef: string | ReceivingForm, data: Record<string, unknown>, flags: ReceiveFlags): Promise<Submission> {
      const form = typeof formRef === "string" ? await formForWrite(store.db).get({ id: formRef }) : formRef;
      if (!form) throw new ApiError("form_not_found", "This form no longer exists.");
      // The opt-in link's key is read (made, the first time) before the write, and only for a form that needs it.
      if (confirmationOf(form)?.doubleOptIn) await optIn?.ready();
      // Where it goes once kept is decided here, before the write: its values are compared outside the write's lock.
      const routing = await routingOf(store.db, form, data, keeping);
      const written = await write({ form, data, flags, routing });
      // Only now is what it queued committed, so the senders cannot look for it too early.
      announce(keeping, written.queued);
      return toSubmission(written.row);
    },
  };
}

export type SubmissionsService = ReturnType<typeof submissionsService>;
