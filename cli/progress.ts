import type { ExportFormat } from "../src/domain/types.ts";
import type { Io } from "./io.ts";

const NEWLINE = 10;
const QUOTE = 34;
const BRACE = 123;

/**
 * Counts the submissions in an export as it streams past, from the bytes alone, so that local and remote
 * mode count alike: NDJSON ends each one with a newline; the JSON array starts each on a new line with `{`
 * (JSON escapes newlines inside strings); CSV ends each row with a newline outside quotes, after a header.
 */
export class RecordCounter {
  private newlines = 0;
  private records = 0;
  private inQuotes = false;
  private afterNewline = false;

  constructor(private readonly format: ExportFormat) {}

  add(chunk: string | Uint8Array): void {
    const text = typeof chunk === "string";
    for (let i = 0; i < chunk.length; i++) {
      // The characters that matter are ASCII, which UTF-8 never uses inside a multi-byte character.
      const code = text ? (chunk as string).charCodeAt(i) : (chunk as Uint8Array)[i]!;
      if (this.format === "csv") {
        if (code === QUOTE) this.inQuotes = !this.inQuotes;
        else if (code === NEWLINE && !this.inQuotes) this.newlines++;
      } else if (this.format === "ndjson") {
        if (code === NEWLINE) this.records++;
      } else {
        if (this.afterNewline && code === BRACE) this.records++;
        this.afterNewline = code === NEWLINE;
      }
    }
  }

  /** Submissions seen so far. */
  get count(): number {
    return this.format === "csv" ? Math.max(0, this.newlines - 1) : this.records;
  }
}

const WIDTH = 24;
const REDRAW_MS = 100;

const megabytes = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`;
const thousands = (n: number) => n.toLocaleString("en-US");

/** A one-line progress bar on stderr, redrawn at most ten times a second; for a terminal only. */
export class ProgressBar {
  // The first chunk draws at once, however soon after the start it comes: a fast export still shows it began.
  private lastDraw = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly io: Io,
    private readonly total: number | null,
  ) {}

  update(done: number, bytes: number, force = false): void {
    const now = performance.now();
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    let line: string;
    if (this.total) {
      const share = Math.min(1, done / this.total);
      const filled = Math.round(share * WIDTH);
      line = `Exporting ${"█".repeat(filled)}${"░".repeat(WIDTH - filled)} ${thousands(done)}/${thousands(this.total)} (${Math.floor(share * 100)}%) ${megabytes(bytes)}`;
    } else {
      line = `Exporting ${thousands(done)} submissions, ${megabytes(bytes)}`;
    }
    this.io.err(`\r\x1b[2K${line}`);
  }

  /** Clears the bar, so that the summary line starts clean. */
  clear(): void {
    this.io.err("\r\x1b[2K");
  }
}

export { megabytes, thousands };
