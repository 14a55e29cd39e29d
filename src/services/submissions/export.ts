import type { ExportFormat, Submission } from "../../domain/types.ts";
import { csvCell, csvRecord, fieldValue } from "../../lib/csv.ts";
import { PAYMENT_COLUMNS } from "./export-rows.ts";

/** The Content-Type of an export in each format. */
export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
  json: "application/json; charset=utf-8",
};

/** The export as text chunks, one submission at a time: memory does not grow with the count. */
export async function* exportChunks(
  format: ExportFormat,
  fields: readonly string[],
  submissions: AsyncIterable<Submission>,
  options: { spamReason?: boolean; payment?: boolean } = {},
): AsyncGenerator<string> {
  if (format === "csv") {
    // An export of spam says why each one is spam; other exports hold no spam, so they have no such column.
    const reason = options.spamReason ? ["spamReason"] : [];
    // A form that takes a payment has its payment's columns (docs/api.md, "Payments").
    const payment = options.payment ? PAYMENT_COLUMNS : [];
    yield csvRecord(["id", "createdAt", ...reason, ...payment, ...fields].map(csvCell));
    for await (const s of submissions) {
      const paid = options.payment ? [csvCell(s.payment?.status ?? ""), s.payment ? String(s.payment.amount) : "", csvCell(s.payment?.currency ?? "")] : [];
      yield csvRecord([s.id, s.createdAt, ...(options.spamReason ? [s.spamReason ?? ""] : []), ...paid, ...fields.map((f) => csvCell(fieldValue(s.data, f)))]);
    }
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
