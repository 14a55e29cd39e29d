import type { Store } from "../../db/client.ts";
import type { SubmissionRow } from "../../db/schema.ts";
import type { ExportFormat } from "../../domain/types.ts";
import { mayHoldFiles, RowWriter, type StoredRow } from "./export-rows.ts";

/** How the export reads its rows: the whole query (SQLite steps it at once) and a page of it after a key (libSQL). */
export interface ExportSource {
  store: Store;
  formId: string;
  fields: readonly string[];
  spamReason: boolean;
  /** Whether the form takes a payment: its CSV has the payment's columns. */
  payment?: boolean;
  /** The select of every matching row, in the export's order. */
  query(): { toSQL(): { sql: string; params: unknown[] } };
  /** One page of at most `limit` rows after `after` (the last row of the page before), in the export's order. */
  page(after: { createdAt: number; id: string } | null, limit: number): Promise<SubmissionRow[]>;
  /** The ids of the stored files of each of these submissions. */
  storedFiles(submissionIds: string[]): Promise<Map<string, Set<string>>>;
}

const CHUNK = 65_536;
// An export makes garbage fast (every row's text, several times over) and the collector, left to itself, let
// it pile up: on 950,000 rows the server's peak RSS went from 56 MB idle to 111-123 MB. A full collection
// after every 8 MiB of text keeps it at 87-92 MB, for a pause of about 9 ms each (7% of a CSV export's CPU
// time). Every 16 MiB gave 95 MB; a young-generation collection every MiB, 101-109 MB.
const COLLECT_EVERY = 8 * 1_048_576;

const PAGE = 500;

const asStored = (row: SubmissionRow): StoredRow => ({
  id: row.id,
  data: row.data,
  created_at: row.createdAt,
  is_read: row.isRead,
  is_starred: row.isStarred,
  is_spam: row.isSpam,
  spam_reason: row.spamReason,
  payment_status: row.paymentStatus,
  payment_amount: row.paymentAmount,
  payment_currency: row.paymentCurrency,
  payment_session: row.paymentSession,
  payment_intent: row.paymentIntent,
});

/**
 * The export as text chunks of about 64 KiB, memory flat whatever the count. On a SQLite file, one
 * statement on a read connection of its own (a statement left open on the shared reader would hold every
 * other read to its snapshot), stepped as the reader pulls; on libSQL, pages by key. The same bytes either way.
 */
export async function* exportText(source: ExportSource, format: ExportFormat): AsyncGenerator<string> {
  const writer = new RowWriter(format, source.fields, source.formId, source.spamReason, source.payment);
  let buffer = writer.head();
  let sinceCollection = 0;
  const chunk = () => {
    sinceCollection += buffer.length;
    if (sinceCollection >= COLLECT_EVERY) {
      sinceCollection = 0;
      Bun.gc(true);
    }
    const text = buffer;
    buffer = "";
    return text;
  };
  if (source.store.openReader) {
    const { sql, params } = source.query().toSQL();
    const reader = source.store.openReader();
    try {
      // Stepped in the statement's own read transaction: the files seen are those of the same snapshot.
      const filesOf = reader.prepare("SELECT id FROM files WHERE submission_id = ?");
      for (const row of reader.prepare(sql).iterate(...(params as never[])) as IterableIterator<StoredRow>) {
        const stored = mayHoldFiles(row.data) ? new Set((filesOf.all(row.id) as { id: string }[]).map((f) => f.id)) : null;
        buffer += writer.row(row, stored);
        if (buffer.length >= CHUNK) yield chunk();
      }
    } finally {
      reader.close();
    }
  } else {
    let after: { createdAt: number; id: string } | null = null;
    for (;;) {
      const page = await source.page(after, PAGE);
      const holders = page.filter((row) => mayHoldFiles(row.data)).map((row) => row.id);
      const stored = await source.storedFiles(holders);
      for (const row of page) {
        buffer += writer.row(asStored(row), stored.get(row.id) ?? null);
        if (buffer.length >= CHUNK) yield chunk();
      }
      if (page.length < PAGE) break;
      const last = page[page.length - 1]!;
      after = { createdAt: last.createdAt, id: last.id };
    }
  }
  buffer += writer.tail();
  if (buffer) yield buffer;
}
