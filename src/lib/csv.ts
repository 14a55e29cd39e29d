// Cells and records of CSV as an export writes them (RFC 4180, with formulas kept as text).
import { isFileRef } from "./files.ts";

// A spreadsheet runs a cell that starts with one of these as a formula: a submitted "=HYPERLINK(...)" must stay
// text. The full-width forms are there because some spreadsheets fold them to the ASCII ones.
// (A switch, not a Set: this runs for every cell of an export.)
function startsFormula(code: number): boolean {
  switch (code) {
    case 0x3d:
    case 0x2b:
    case 0x2d:
    case 0x40:
    case 0x09:
    case 0x0d:
    case 0xff1d:
    case 0xff0b:
    case 0xff0d:
    case 0xff20:
      return true;
    default:
      return false;
  }
}

/** Text as a CSV cell: one that a spreadsheet would run as a formula is escaped with a quote. */
export const textCell = (text: string) => (startsFormula(text.charCodeAt(0)) ? `'${text}` : text);
const NEEDS_QUOTES = /[",\r\n]/;
const QUOTES = /"/g;

/** A cell as RFC 4180 writes it: one with a comma, quote or line break is quoted, its quotes doubled. */
export const quotedCell = (cell: string) => (NEEDS_QUOTES.test(cell) ? `"${cell.replace(QUOTES, '""')}"` : cell);

/**
 * The written cell of a JSON string's raw contents that hold no backslash: such text has no quote and no line
 * break (JSON escapes them), so only a comma asks for quotes. The same text as quotedCell(textCell(raw)).
 */
export const plainJsonCell = (raw: string) => {
  const text = textCell(raw);
  return text.includes(",") ? `"${text}"` : text;
};

/** One CSV record (RFC 4180). */
export function csvRecord(cells: string[]): string {
  let line = "";
  for (let i = 0; i < cells.length; i++) line += i > 0 ? `,${quotedCell(cells[i]!)}` : quotedCell(cells[i]!);
  return `${line}\n`;
}

/** A file in a CSV cell: its name and, in an export, where the owner downloads it: `cv.pdf (/api/forms/…/files/fil_…)`. */
const fileCell = (file: { name: string; file: string; path?: unknown }) => `${file.name} (${typeof file.path === "string" ? file.path : file.file})`;

/** One CSV cell: lists joined with ", ", files as name and path, objects as JSON, and anything a spreadsheet would run escaped with a quote. */
export function csvCell(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (isFileRef(value)) text = fileCell(value);
  else if (Array.isArray(value))
    text = value.map((v) => (isFileRef(v) ? fileCell(v) : typeof v === "object" && v !== null ? JSON.stringify(v) : String(v))).join(", ");
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  return textCell(text);
}

/**
 * A submission's value for `field`, from its own properties only: a field another submission has (say
 * `toString`) must read as empty here, not as the function every object inherits.
 */
export const fieldValue = (data: Record<string, unknown>, field: string): unknown => (Object.hasOwn(data, field) ? data[field] : undefined);
