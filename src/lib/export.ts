import type { SubmissionRow } from "../db/schema.ts";
import type { Submission } from "../services/submissions.ts";
import { iso } from "./time.ts";

export const EXPORT_FORMATS = ["csv", "ndjson", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
  json: "application/json; charset=utf-8",
};

// A spreadsheet runs a cell that starts with one of these as a formula: a submitted "=HYPERLINK(...)" must stay
// text. The full-width forms are there because some spreadsheets fold them to the ASCII ones.
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;
const NEEDS_QUOTES = /[",\r\n]/;
const QUOTES = /"/g;

/** One CSV record (RFC 4180): a cell with a comma, quote or line break is quoted, its quotes doubled. */
function csvRecord(cells: string[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) {
    const cell = cells[i]!;
    if (i > 0) line += ",";
    line += NEEDS_QUOTES.test(cell) ? `"${cell.replace(QUOTES, '""')}"` : cell;
  }
  return `${line}\n`;
}

/** One CSV cell: lists joined with ", ", objects as JSON, and anything a spreadsheet would run escaped with a quote. */
export function csvCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (Array.isArray(value)) text = value.map((v) => (typeof v === "object" && v !== null ? JSON.stringify(v) : String(v))).join(", ");
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** The export as text chunks, one submission at a time: memory does not grow with the count. */
export async function* exportChunks(format: ExportFormat, fields: readonly string[], submissions: AsyncIterable<Submission>): AsyncGenerator<string> {
  if (format === "csv") {
    yield csvRecord(["id", "createdAt", ...fields].map(csvCell));
    for await (const s of submissions) yield csvRecord([s.id, s.createdAt, ...fields.map((f) => csvCell(own(s.data, f)))]);
    return;
  }
  if (format === "ndjson") {
    for await (const s of submissions) yield `${JSON.stringify(s)}\n`;
    return;
  }
  let first = true;
  yield "[";
  for await (const s of submissions) {
    yield `${first ? "\n" : ",\n"}${JSON.stringify(s)}`;
    first = false;
  }
  yield first ? "]\n" : "\n]\n";
}

/** A submission's value for a field: its own, never one inherited (a field named __proto__ that it lacks is empty). */
const own = (data: Record<string, unknown>, field: string) => (Object.hasOwn(data, field) ? data[field] : undefined);

/** The CSV header: id, createdAt, then a column per field. */
export const csvHeader = (fields: readonly string[]) => csvRecord(["id", "createdAt", ...fields].map(csvCell));

/** One stored submission as a CSV record; `data` is its stored JSON text. */
export function csvRow(id: string, createdAt: string, data: string, fields: readonly string[]): string {
  const values = JSON.parse(data) as Record<string, unknown>;
  const cells = [id, createdAt];
  for (const field of fields) cells.push(csvCell(own(values, field)));
  return csvRecord(cells);
}

/**
 * A stored submission as the API shows it (the same keys in the same order), as JSON text: its data is
 * stored as JSON already, so it is not parsed to be written again.
 */
export function submissionJson(id: string, data: string, createdAt: number, isRead: boolean, isStarred: boolean, isSpam: boolean): string {
  return `{"id":${JSON.stringify(id)},"data":${data},"createdAt":"${iso(createdAt)}","isRead":${isRead},"isStarred":${isStarred},"isSpam":${isSpam}}`;
}

const CHUNK = 65_536;

/**
 * The export of stored rows, read in batches, as text chunks of about 64 KiB: the same bytes as
 * exportChunks gives for the same submissions, made without building a Submission for each row.
 */
export async function* exportRowChunks(format: ExportFormat, fields: readonly string[], batches: AsyncIterable<SubmissionRow[]>): AsyncGenerator<string> {
  let buffer = format === "csv" ? csvHeader(fields) : format === "json" ? "[" : "";
  let first = true;
  for await (const batch of batches) {
    for (const row of batch) {
      if (format === "csv") buffer += csvRow(row.id, iso(row.createdAt), row.data, fields);
      else if (format === "ndjson") {
        buffer += `${submissionJson(row.id, row.data, row.createdAt, row.isRead, row.isStarred, row.isSpam)}\n`;
      } else {
        buffer += `${first ? "\n" : ",\n"}${submissionJson(row.id, row.data, row.createdAt, row.isRead, row.isStarred, row.isSpam)}`;
      }
      first = false;
    }
    if (buffer.length >= CHUNK) {
      yield buffer;
      buffer = "";
    }
  }
  if (format === "json") buffer += first ? "]\n" : "\n]\n";
  if (buffer) yield buffer;
}

/** The export as a byte stream for an HTTP answer, pulled as the client reads. */
export function exportStream(chunks: AsyncGenerator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    // Gathers about 64 KiB per chunk: one write per submission would cost more than the rows themselves.
    async pull(controller) {
      let buffer = "";
      while (buffer.length < 65_536) {
        const next = await chunks.next();
        if (next.done) {
          if (buffer) controller.enqueue(encoder.encode(buffer));
          controller.close();
          return;
        }
        buffer += next.value;
      }
      controller.enqueue(encoder.encode(buffer));
    },
    async cancel() {
      await chunks.return(undefined);
    },
  });
}
