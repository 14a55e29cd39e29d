import type { Submission } from "../services/submissions.ts";

export const EXPORT_FORMATS = ["csv", "ndjson", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
  json: "application/json; charset=utf-8",
};

// A spreadsheet runs a cell that starts with one of these as a formula: a submitted "=HYPERLINK(...)" must stay text.
const FORMULA_START = /^[=+\-@\t\r]/;

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
    // Loaded by the first CSV export, not by every start of the server or the CLI.
    const { stringify } = await import("csv-stringify/sync");
    yield stringify([["id", "createdAt", ...fields].map(csvCell)]);
    for await (const s of submissions) yield stringify([[s.id, s.createdAt, ...fields.map((f) => csvCell(s.data[f]))]]);
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
