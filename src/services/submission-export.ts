import { and, asc, desc, eq, gt, sql, type SQL } from "drizzle-orm";
import type { Store } from "../db/client.ts";
import { submissions, type SubmissionRow } from "../db/schema.ts";
import { csvHeader, csvRow, exportRowChunks, submissionJson, type ExportFormat } from "../lib/export.ts";
import { iso } from "../lib/time.ts";
import { COLUMNS, FILTER_SQL, through, type Filter, type Order } from "./submission-pages.ts";

/** What the export selects. */
export interface ExportSelection {
  since: number | null;
  filter: Filter;
  order: Order;
}

const EXPORT_BATCH = 1000;

/** A row as bun:sqlite gives it: the columns' own names, flags as 0 or 1. */
interface RawRow {
  id: string;
  form_id: string;
  data: string;
  created_at: number;
  is_read: number;
  is_starred: number;
  is_spam: number;
}

/**
 * Every matching submission of a form, in batches, memory flat whatever the count. On a SQLite file: one
 * statement on a connection of its own, stepped as the reader pulls. On libSQL: pages by key.
 */
export async function* storedBatches(store: Store, formId: string, selection: ExportSelection): AsyncGenerator<SubmissionRow[]> {
  const by = selection.order === "asc" ? [asc(submissions.createdAt), asc(submissions.id)] : [desc(submissions.createdAt), desc(submissions.id)];
  const where = (cursor?: SQL) =>
    and(eq(submissions.formId, formId), FILTER_SQL[selection.filter], selection.since === null ? undefined : gt(submissions.createdAt, selection.since), cursor);
  if (store.openReader) {
    const query = store.db.select(COLUMNS).from(through(selection.filter)).where(where()).orderBy(...by).toSQL();
    const reader = store.openReader();
    try {
      const statement = reader.prepare(query.sql);
      let batch: SubmissionRow[] = [];
      for (const raw of statement.iterate(...(query.params as never[])) as IterableIterator<RawRow>) {
        batch.push({ id: raw.id, formId: raw.form_id, data: raw.data, createdAt: raw.created_at, isRead: raw.is_read === 1, isStarred: raw.is_starred === 1, isSpam: raw.is_spam === 1 });
        if (batch.length === EXPORT_BATCH) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      reader.close();
    }
    return;
  }
  let after: { createdAt: number; id: string } | null = null;
  for (;;) {
    const cursor: SQL | undefined = after
      ? selection.order === "asc"
        ? sql`(${submissions.createdAt}, ${submissions.id}) > (${after.createdAt}, ${after.id})`
        : sql`(${submissions.createdAt}, ${submissions.id}) < (${after.createdAt}, ${after.id})`
      : undefined;
    const batch: SubmissionRow[] = await store.db.select(COLUMNS).from(through(selection.filter)).where(where(cursor)).orderBy(...by).limit(EXPORT_BATCH);
    if (batch.length > 0) yield batch;
    if (batch.length < EXPORT_BATCH) return;
    const last = batch[batch.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

const CHUNK = 65_536;

/**
 * The export of every matching submission as text chunks of about 64 KiB, the same bytes whichever the
 * driver: on a SQLite file one statement on a connection of its own, stepped as the reader pulls; on libSQL
 * batches by key.
 */
export async function* exportTextChunks(store: Store, formId: string, selection: ExportSelection, format: ExportFormat, fields: readonly string[]): AsyncGenerator<string> {
  if (!store.openReader) {
    yield* exportRowChunks(format, fields, storedBatches(store, formId, selection));
    return;
  }
  const by = selection.order === "asc" ? [asc(submissions.createdAt), asc(submissions.id)] : [desc(submissions.createdAt), desc(submissions.id)];
  const where = and(eq(submissions.formId, formId), FILTER_SQL[selection.filter], selection.since === null ? undefined : gt(submissions.createdAt, selection.since));
  const query = store.db.select(COLUMNS).from(through(selection.filter)).where(where).orderBy(...by).toSQL();
  const reader = store.openReader();
  try {
    const statement = reader.prepare(query.sql);
    const rows = statement.iterate(...(query.params as never[])) as IterableIterator<RawRow>;
    let buffer = format === "csv" ? csvHeader(fields) : format === "json" ? "[" : "";
    let first = true;
    // Straight from the raw row to text: no Submission object, no parse of the data for JSON. (Measured:
    // SQLite's strftime, or the whole JSON line built in SQL, cost more than this.)
    for (const row of rows) {
      if (format === "csv") buffer += csvRow(row.id, iso(row.created_at), row.data, fields);
      else {
        const line = submissionJson(row.id, row.data, row.created_at, row.is_read === 1, row.is_starred === 1, row.is_spam === 1);
        buffer += format === "ndjson" ? `${line}\n` : `${first ? "\n" : ",\n"}${line}`;
      }
      first = false;
      if (buffer.length >= CHUNK) {
        yield buffer;
        buffer = "";
      }
    }
    if (format === "json") buffer += first ? "]\n" : "\n]\n";
    if (buffer) yield buffer;
  } finally {
    reader.close();
  }
}
