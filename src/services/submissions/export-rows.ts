// The export written straight from stored rows: no Submission object per row, and the stored data (JSON
// text, made by JSON.stringify on receive) is not parsed again unless a row holds file objects or a CSV cell
// holds a list or an object. The bytes are the ones exportChunks makes from the API's Submission objects; a
// unit test holds the two together for both drivers.
import { DAY_MS, type ExportFormat } from "../../domain/types.ts";
import { csvCell, csvRecord, fieldValue, plainJsonCell, quotedCell, textCell } from "../../lib/csv.ts";
import { filePath, isFileRef } from "../../lib/files.ts";
import { iso } from "../../lib/time.ts";

/** A submission as the export reads it from the database: columns as stored, flags as 0/1 or booleans. */
export interface StoredRow {
  id: string;
  data: string;
  created_at: number;
  is_read: number | boolean;
  is_starred: number | boolean;
  is_spam: number | boolean;
  spam_reason: string | null;
  /** The payment's columns (docs/api.md, "Payments"); null on a submission that pays nothing. */
  payment_status?: string | null;
  payment_amount?: number | null;
  payment_currency?: string | null;
  payment_session?: string | null;
  payment_intent?: string | null;
}

/** The CSV columns of an export of a form that takes a payment, after id, createdAt (and spamReason). */
export const PAYMENT_COLUMNS = ["paymentStatus", "paymentAmount", "paymentCurrency"];

/** A stored row's payment as the API's Submission shows it, as JSON text; null when it pays nothing. */
const paymentJson = (row: StoredRow): string | null =>
  row.payment_status
    ? JSON.stringify({
        status: row.payment_status,
        amount: row.payment_amount ?? 0,
        currency: row.payment_currency ?? "",
        sessionId: row.payment_session ?? null,
        paymentIntent: row.payment_intent ?? null,
      })
    : null;

/** Quick test on the stored text: only data that holds a file object (`"file":"fil_…"`) needs the files table. */
export const mayHoldFiles = (data: string) => data.includes('"fil_');

/**
 * A value with, when it is a file object of one of the submission's stored files (`stored`, file ids), the path
 * where the owner downloads it; other values, and file-shaped objects with no file behind them, as they are.
 */
const fileLinker = (formId: string, submissionId: string, stored: ReadonlySet<string>) => (value: unknown) =>
  isFileRef(value) && stored.has(value.file) ? { ...value, path: filePath(formId, submissionId, value.file) } : value;

/** A submission's data with a download path on each of its stored files (see fileLinker). */
export function withFilePaths(data: Record<string, unknown>, formId: string, submissionId: string, stored: ReadonlySet<string>): Record<string, unknown> {
  const linked = fileLinker(formId, submissionId, stored);
  return Object.fromEntries(Object.entries(data).map(([name, value]) => [name, Array.isArray(value) ? value.map(linked) : linked(value)]));
}
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

const ESCAPED: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/** The value of a JSON string's contents (between its quotes): what JSON.parse gives, without its cost per call. */
function unescapeJson(raw: string): string {
  let out = "";
  let from = 0;
  for (let at = raw.indexOf("\\"); at >= 0; at = raw.indexOf("\\", from)) {
    const c = raw[at + 1]!;
    out += raw.slice(from, at);
    if (c === "u") {
      out += String.fromCharCode(Number.parseInt(raw.slice(at + 2, at + 6), 16));
      from = at + 6;
    } else {
      out += ESCAPED[c] ?? c;
      from = at + 2;
    }
  }
  return out + raw.slice(from);
}

const TWO = Array.from({ length: 60 }, (_, n) => String(n).padStart(2, "0"));
const THREE = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, "0"));
const YEAR_10000 = 253_402_300_800_000;

/**
 * ISO times of rows that come in order: the day's part is made once per day, the rest from tables; the very
 * text of iso() (toISOString was 7% of a CSV export).
 */
class IsoClock {
  private day = Number.NaN;
  private prefix = "";

  at(ms: number): string {
    if (!(ms >= 0 && ms < YEAR_10000) || !Number.isInteger(ms)) return iso(ms);
    const day = Math.floor(ms / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.prefix = iso(day * DAY_MS).slice(0, 11);
    }
    let rest = ms - day * DAY_MS;
    const hours = Math.floor(rest / 3_600_000);
    rest -= hours * 3_600_000;
    const minutes = Math.floor(rest / 60_000);
    rest -= minutes * 60_000;
    const seconds = Math.floor(rest / 1000);
    return `${this.prefix}${TWO[hours]}:${TWO[minutes]}:${TWO[seconds]}.${THREE[rest - seconds * 1000]}Z`;
  }
}

/** Index of the quote that closes a string opened before `from`, or -1 when there is none. */
function closingQuote(text: string, from: number, escapes: boolean): number {
  let at = text.indexOf('"', from);
  if (!escapes) return at;
  // A quote closes the string unless an odd run of backslashes stands before it. Searching for quotes and
  // looking back is native work; stepping every character in JavaScript was most of a CSV export's time.
  while (at >= 0) {
    let backslashes = 0;
    while (at - backslashes - 1 >= from && text.charCodeAt(at - backslashes - 1) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at = text.indexOf('"', at + 1);
  }
  return -1;
}

/** Index just past the object or array that opens at `from` (strings inside skipped), or -1. */
function pastNested(text: string, from: number, escapes: boolean): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i + 1, escapes);
      if (i < 0) return -1;
    } else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * The written CSV cells (quoted where RFC 4180 asks) of the columns `columns` names (field → index), read from the stored JSON text of one
 * submission without building it: strings without escapes are sliced, numbers and booleans are their own text
 * (JSON.stringify writes a number as String does), lists and objects alone are parsed. False when the text is
 * not the compact top-level object JSON.stringify writes: the caller then parses it whole.
 */
function scanCells(text: string, columns: Columns, cells: string[], link: ((value: unknown) => unknown) | null): boolean {
  const length = text.length;
  if (text.charCodeAt(0) !== 0x7b) return false;
  if (length === 2) return text.charCodeAt(1) === 0x7d;
  const escapes = text.indexOf("\\") >= 0;
  let i = 1;
  for (let k = 0; ; k++) {
    if (text.charCodeAt(i) !== QUOTE) return false;
    // Most rows have the keys of the row before, in the same order: the k-th key is checked in place first.
    const seen = columns.order[k];
    let keyEnd: number;
    let column: number | undefined;
    if (seen !== undefined && text.startsWith(seen.raw, i + 1)) {
      keyEnd = i + seen.raw.length - 1;
      column = seen.column;
    } else {
      keyEnd = closingQuote(text, i + 1, escapes);
      if (keyEnd < 0 || text.charCodeAt(keyEnd + 1) !== 0x3a) return false;
      const rawKey = text.slice(i + 1, keyEnd);
      column = columns.byName.get(escapes && rawKey.includes("\\") ? unescapeJson(rawKey) : rawKey);
      // The raw key with its closing quote and colon: no other key's text starts with it.
      columns.order[k] = { raw: `${rawKey}":`, column };
    }
    const start = keyEnd + 2;
    const c = text.charCodeAt(start);
    let end: number;
    if (c === QUOTE) {
      end = closingQuote(text, start + 1, escapes) + 1;
      if (end <= 0) return false;
      if (column !== undefined) {
        const raw = text.slice(start + 1, end - 1);
        cells[column] = escapes && raw.includes("\\") ? quotedCell(textCell(unescapeJson(raw))) : plainJsonCell(raw);
      }
    } else if (c === 0x7b || c === 0x5b) {
      end = pastNested(text, start, escapes);
      if (end < 0) return false;
      if (column !== undefined) {
        const value = JSON.parse(text.slice(start, end)) as unknown;
        cells[column] = quotedCell(csvCell(link === null ? value : Array.isArray(value) ? value.map(link) : link(value)));
      }
    } else {
      // null, true, false or a number: it ends at the next comma or brace, neither of which it can hold.
      end = start;
      while (end < length && text.charCodeAt(end) !== 0x2c && text.charCodeAt(end) !== 0x7d) end++;
      if (column !== undefined) cells[column] = end - start === 4 && text.startsWith("null", start) ? "" : quotedCell(textCell(text.slice(start, end)));
    }
    const next = text.charCodeAt(end);
    if (next === 0x7d) return end === length - 1;
    if (next !== 0x2c) return false;
    i = end + 1;
  }
}

/** The CSV columns by field name, and the keys of the last rows scanned, in their order. */
interface Columns {
  byName: Map<string, number>;
  order: ({ raw: string; column: number | undefined } | undefined)[];
}

/** Writes one export, row by row, in the format asked for; `head` and `tail` frame the rows. */
export class RowWriter {
  private readonly columns: Columns = { byName: new Map(), order: [] };
  private readonly cells: string[];
  private readonly prefix: number;
  private first = true;
  private readonly clock = new IsoClock();

  constructor(
    private readonly format: ExportFormat,
    private readonly fields: readonly string[],
    private readonly formId: string,
    /** An export of spam says why each one is spam (a CSV column; the JSON formats always carry it). */
    private readonly spamReason: boolean,
    /** An export of a form that takes a payment has its payment's columns in CSV (the JSON formats carry it where there is one). */
    private readonly payment = false,
  ) {
    this.prefix = 2 + (spamReason ? 1 : 0) + (payment ? PAYMENT_COLUMNS.length : 0);
    for (const [i, field] of fields.entries()) this.columns.byName.set(field, this.prefix + i);
    this.cells = new Array<string>(this.prefix + fields.length).fill("");
  }

  /** Field names that repeat would share one column in the scanner: such a form is written from parsed data. */
  private get scannable(): boolean {
    return this.columns.byName.size === this.fields.length;
  }

  head(): string {
    if (this.format === "csv")
      return csvRecord(["id", "createdAt", ...(this.spamReason ? ["spamReason"] : []), ...(this.payment ? PAYMENT_COLUMNS : []), ...this.fields].map(csvCell));
    return this.format === "json" ? "[" : "";
  }

  tail(): string {
    if (this.format !== "json") return "";
    return this.first ? "]\n" : "\n]\n";
  }

  /** One submission as text; `stored`: the ids of its stored files, when its data may hold file objects. */
  row(row: StoredRow, stored: ReadonlySet<string> | null): string {
    const files = stored !== null && stored.size > 0 ? stored : null;
    if (this.format === "csv") return this.csv(row, files);
    const data = files === null ? row.data : JSON.stringify(withFilePaths(JSON.parse(row.data) as Record<string, unknown>, this.formId, row.id, files));
    const reason = row.is_spam ? JSON.stringify(row.spam_reason ?? null) : "null";
    const payment = paymentJson(row);
    const line = `{"id":${JSON.stringify(row.id)},"data":${data},"createdAt":"${this.clock.at(row.created_at)}","isRead":${Boolean(row.is_read)},"isStarred":${Boolean(row.is_starred)},"isSpam":${Boolean(row.is_spam)},"spamReason":${reason}${payment ? `,"payment":${payment}` : ""}}`;
    if (this.format === "ndjson") return `${line}\n`;
    const text = `${this.first ? "\n" : ",\n"}${line}`;
    this.first = false;
    return text;
  }

  private csv(row: StoredRow, files: ReadonlySet<string> | null): string {
    const cells = this.cells;
    cells.fill("");
    cells[0] = row.id;
    cells[1] = this.clock.at(row.created_at);
    if (this.spamReason) cells[2] = quotedCell((row.is_spam ? row.spam_reason : null) ?? "");
    if (this.payment) {
      const at = this.spamReason ? 3 : 2;
      cells[at] = quotedCell(csvCell(row.payment_status ?? ""));
      cells[at + 1] = row.payment_amount === null || row.payment_amount === undefined ? "" : String(row.payment_amount);
      cells[at + 2] = quotedCell(csvCell(row.payment_currency ?? ""));
    }
    const link = files === null ? null : fileLinker(this.formId, row.id, files);
    if (!this.scannable || !scanCells(row.data, this.columns, cells, link)) {
      let data = JSON.parse(row.data) as Record<string, unknown>;
      if (files !== null) data = withFilePaths(data, this.formId, row.id, files);
      cells.fill("", this.prefix);
      for (const [i, field] of this.fields.entries()) cells[this.prefix + i] = quotedCell(csvCell(fieldValue(data, field)));
    }
    // Every cell is written already (id and createdAt never need quotes).
    let line = `${cells[0]},${cells[1]}`;
    for (let i = 2; i < cells.length; i++) line += `,${cells[i]}`;
    return `${line}\n`;
  }
}
