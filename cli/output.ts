import type { Io } from "./io.ts";

/** One column of a list: its header and how to show a row's value. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Colour for the terminal table (ignored when piped). */
  style?: (text: string, row: T) => string;
}

// Submitted data is untrusted: a control character (an ANSI escape, say) must not reach the terminal as one.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** A value as one line of plain text, control characters made visible. */
export function cellText(value: unknown): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (typeof value === "string") text = value;
  else if (Array.isArray(value)) text = value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
  else if (typeof value === "object") text = JSON.stringify(value);
  else text = String(value);
  return text.replace(CONTROL, (c) => (c === "\n" ? "\\n" : c === "\t" ? "\\t" : c === "\r" ? "\\r" : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`));
}

const MAX_CELL = 60;

/**
 * Prints rows: an aligned table with a header on a terminal, tab-separated rows without a header when piped
 * (the GitHub CLI's habit), or with `--json` the objects themselves as one JSON array.
 */
export function printList<T>(io: Io, rows: readonly T[], columns: readonly Column<T>[], options: { json?: boolean; empty?: string } = {}): void {
  if (options.json) {
    io.out(`${JSON.stringify(rows, null, 2)}\n`);
    return;
  }
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  if (!io.isTTY) {
    for (const line of cells) io.out(`${line.join("\t")}\n`);
    return;
  }
  if (rows.length === 0) {
    io.err(`${options.empty ?? "Nothing to show."}\n`);
    return;
  }
  const shown = cells.map((line) => line.map((text) => (text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text)));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...shown.map((line) => line[i]!.length)));
  const pad = (text: string, i: number) => (i === columns.length - 1 ? text : text.padEnd(widths[i]!));
  io.out(`${columns.map((c, i) => io.chalk.bold(pad(c.header.toUpperCase(), i))).join("  ")}\n`);
  shown.forEach((line, r) => {
    const styled = line.map((text, i) => {
      const padded = pad(text, i);
      const style = columns[i]!.style;
      return style ? style(padded, rows[r]!) : padded;
    });
    io.out(`${styled.join("  ").trimEnd()}\n`);
  });
}

/** Prints one object: `--json` as JSON, else `key: value` lines (tab-separated when piped). */
export function printObject(io: Io, object: Record<string, unknown>, options: { json?: boolean } = {}): void {
  if (options.json) {
    io.out(`${JSON.stringify(object, null, 2)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(object).map((k) => k.length));
  for (const [key, value] of Object.entries(object)) {
    io.out(io.isTTY ? `${io.chalk.bold(key.padEnd(width))}  ${cellText(value)}\n` : `${key}\t${cellText(value)}\n`);
  }
}

// What a terminal would act on, but line breaks and tabs: CSV keeps its own multi-line cells readable.
const UNSAFE_FOR_TERMINAL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;

/** Text bound for a terminal with its escape and control characters made visible (`\x1b`), line breaks kept. */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE_FOR_TERMINAL, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`);
}

/** A stream of export chunks made terminal-safe, for CSV shown on a terminal rather than saved. */
export async function* terminalSafeChunks(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  for await (const chunk of chunks) yield terminalSafe(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
  const rest = decoder.decode();
  if (rest) yield terminalSafe(rest);
}
