import type { Command } from "commander";
import { createWriteStream, renameSync, rmSync, statSync, type WriteStream } from "node:fs";
import { basename, dirname, join } from "node:path";
import { EXPORT_FORMATS } from "../src/domain/types.ts";
import type { SubmissionPage } from "../src/services/submissions/submissions.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { CliError, withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { oneOf, selectionQuery, type SelectionFlags } from "./options.ts";
import { terminalSafeChunks } from "./output.ts";
import { megabytes, ProgressBar, RecordCounter, thousands } from "./progress.ts";

export interface ExportFlags extends SelectionFlags {
  format?: string;
  output?: string;
}

/** Where the export goes: written chunk by chunk, waiting whenever the reader is slower. */
interface Sink {
  write(chunk: string | Uint8Array): Promise<void>;
  /** The export is whole: make it visible. */
  commit(): Promise<void>;
  /** The export failed: leave nothing half-written behind. */
  abort(): Promise<void>;
}

const stdoutSink = (io: Io): Sink => ({ write: (chunk) => io.write(chunk), commit: async () => {}, abort: async () => {} });

/** Resolves when the chunk is handed to the file, so that at most one chunk waits in memory. */
function writeTo(stream: WriteStream, chunk: string | Uint8Array): Promise<void> {
  return new Promise((resolve, reject) => stream.write(chunk, (error) => (error ? reject(error) : resolve())));
}

/**
 * A file written under a temporary name beside it and renamed when complete, so that a cron job's file is
 * whole or absent, never cut short. A path that is not a regular file (/dev/stdout, a FIFO) is written straight.
 */
async function fileSink(path: string): Promise<Sink> {
  let special = false;
  try {
    special = !statSync(path).isFile();
  } catch {
    // Does not exist yet: the usual case.
  }
  const target = special ? path : join(dirname(path), `.${basename(path)}.${process.pid}.partial`);
  // Ctrl-C or a kill during a long export: take the temporary file away too. Set before the file exists.
  const interrupted = (signal: NodeJS.Signals) => {
    if (!special) rmSync(target, { force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", interrupted).once("SIGTERM", interrupted);
  const settle = () => process.off("SIGINT", interrupted).off("SIGTERM", interrupted);
  const stream = createWriteStream(target);
  await new Promise<void>((resolve, reject) => {
    stream.once("open", () => resolve());
    stream.once("error", (error) => {
      settle();
      reject(new CliError(`cannot write ${path}: ${error.message}`));
    });
  });
  const closed = () => new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
  return {
    write: (chunk) => writeTo(stream, chunk),
    async commit() {
      await closed();
      if (!special) renameSync(target, path);
      settle();
    },
    async abort() {
      settle();
      stream.destroy();
      if (!special) rmSync(target, { force: true });
    },
  };
}

/** Joins small chunks (one per submission, in local mode) into writes of about 64 KiB. */
async function* coalesced(chunks: AsyncIterable<string | Uint8Array>): AsyncGenerator<string | Uint8Array> {
  let buffer = "";
  for await (const chunk of chunks) {
    if (typeof chunk !== "string") {
      if (buffer) yield buffer;
      buffer = "";
      yield chunk;
      continue;
    }
    buffer += chunk;
    if (buffer.length >= 65_536) {
      yield buffer;
      buffer = "";
    }
  }
  if (buffer) yield buffer;
}

/**
 * Streams every matching submission to stdout or --output, in constant memory: local mode reads the database
 * in batches, remote mode reads the server's streamed export endpoint. A progress bar is drawn on stderr when
 * stderr is a terminal and the data is not going to that same terminal.
 */
export async function runSubmissionsExport(ref: string, flags: ExportFlags, globals: ConnectionOptions, io: Io): Promise<void> {
  const format = oneOf("--format", flags.format ?? "csv", EXPORT_FORMATS);
  const query = selectionQuery(flags);
  await withBackend(globals, io.env, async (backend) => {
    const showProgress = io.errIsTTY && (flags.output !== undefined || !io.isTTY);
    // One small list call gives the count the bar fills towards (what the filter and since match).
    const total = showProgress
      ? (await backend.call<SubmissionPage>("listSubmissions", { params: { id: ref }, query: { ...query, limit: "1" } }).catch(rethrow)).pagination.total
      : null;
    const exported = await backend.download("exportSubmissions", { params: { id: ref }, query: { ...query, format } }).catch(rethrow);
    // JSON escapes control characters itself; raw CSV cells would reach a terminal as they were submitted.
    const chunks = format === "csv" && flags.output === undefined && io.isTTY ? terminalSafeChunks(exported) : exported;
    const sink = flags.output === undefined ? stdoutSink(io) : await fileSink(flags.output);
    // Counting scans every byte: done only when someone will see the count (a bar, or the closing line).
    const counter = io.errIsTTY ? new RecordCounter(format) : null;
    const bar = showProgress ? new ProgressBar(io, total) : null;
    let bytes = 0;
    try {
      for await (const chunk of coalesced(chunks)) {
        counter?.add(chunk);
        if (counter) bytes += typeof chunk === "string" ? Buffer.byteLength(chunk) : chunk.byteLength;
        await sink.write(chunk);
        bar?.update(counter?.count ?? 0, bytes);
      }
      await sink.commit();
    } catch (error) {
      await sink.abort();
      throw error instanceof CliError ? error : new CliError(`export stopped: ${(error as Error).message}`);
    } finally {
      bar?.clear();
    }
    // Quiet on success when no one is watching, so that a cron job mails only its failures.
    if (counter) io.err(`Exported ${thousands(counter.count)} submissions (${megabytes(bytes)})${flags.output === undefined ? "" : ` to ${flags.output}`}.\n`);
  });
}

const rethrow = (error: unknown): never => {
  throw withFlagName(error, { since: "--since", filter: "--filter", payment: "--payment", order: "--order", format: "--format" });
};

export function exportCommand(submissions: Command, io: Io): void {
  submissions
    .command("export <form>")
    .description("write every matching submission as CSV (a column per field), NDJSON or JSON, streamed")
    .option("--format <format>", "csv, ndjson or json (default csv)")
    .option("--output <file>", "write to FILE (complete or not at all) instead of stdout")
    .option("--since <when>", "only those after WHEN: ISO 8601 or a span back (90s, 15m, 24h, 7d)")
    .option("--filter <filter>", "all (kept: not spam, the default), unread, starred, spam, unconfirmed (double opt-in not yet confirmed) or awaiting_payment")
    .option("--payment <status>", "only those whose payment is paid, expired or refunded")
    .option("--order <order>", "asc or desc by time (default desc)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions export contact --output contact.csv\n  formsvc submissions export contact --format ndjson --since 7d | gzip > week.ndjson.gz\n",
    )
    .action((ref: string, flags: ExportFlags, command: Command) => runSubmissionsExport(ref, flags, command.optsWithGlobals(), io));
}
