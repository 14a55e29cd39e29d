import type { Command } from "commander";
import { PAGE_LIMIT } from "../src/domain/limits.ts";
import { fieldValue } from "../src/lib/csv.ts";
import { exportChunks } from "../src/services/submissions/export.ts";
import type { Submission } from "../src/domain/types.ts";
import type { SubmissionPage } from "../src/services/submissions/submissions.ts";
import { withBackend, type Backend, type ConnectionOptions, type QueryParams } from "./backend.ts";
import { CliError, EXIT, withFlagName } from "./errors.ts";
import { eraseCommand } from "./erase.ts";
import { exportCommand } from "./export.ts";
import { filesCommand } from "./files.ts";
import type { Io } from "./io.ts";
import { oneOf, selectionQuery, type SelectionFlags } from "./options.ts";
import { cellText, printList, printObject, terminalSafeChunks, type Column } from "./output.ts";

export const LIST_FORMATS = ["table", "tsv", "json", "ndjson", "csv"] as const;
type ListFormat = (typeof LIST_FORMATS)[number];

const FLAGS = { limit: "--limit", offset: "--offset", since: "--since", order: "--order", filter: "--filter", payment: "--payment", format: "--format" };

export interface ListFlags extends SelectionFlags {
  limit?: string;
  offset?: string;
  all?: boolean;
  format?: string;
}

/** Why a submission is spam, in a word: `spam:honeypot`, `spam:rule:max_links`, or the filter's score `spam:filter(0.97)`. */
const spamWord = (s: Submission) => (!s.spamReason ? "spam" : s.spamReason === "filter" ? `spam:filter(${s.spamScore?.toFixed(2)})` : `spam:${s.spamReason}`);

/**
 * The flags a submission carries, as words: `unread`, `starred`, `spam` with why (`spam:honeypot`), `unconfirmed`
 * (double opt-in), and its payment's state (`payment:paid`).
 */
const flagWords = (s: Submission) =>
  [
    s.isRead ? "" : "unread",
    s.isStarred ? "starred" : "",
    s.isSpam ? spamWord(s) : "",
    s.confirmedAt === null ? "unconfirmed" : "",
    s.payment ? `payment:${s.payment.status}` : "",
  ]
    .filter(Boolean)
    .join(" ");

/** id, created, flags, then one column per field of the form, in order of first appearance. */
function columns(fields: readonly string[], io: Io): Column<Submission>[] {
  return [
    { header: "id", value: (s) => s.id },
    { header: "created", value: (s) => s.createdAt },
    { header: "flags", value: flagWords, style: (text, s) => (s.isSpam ? io.chalk.red(text) : s.isRead ? text : io.chalk.bold(text)) },
    ...fields.map((field): Column<Submission> => ({ header: field, value: (s) => fieldValue(s.data, field) })),
  ];
}

/**
 * The pages a list asks for: one, or with --all every page from --offset on, each after the last one's
 * nextCursor. A cursor page costs the same at any depth, and a submission that arrives during the walk
 * shifts nothing: no page repeats or skips one.
 */
async function* pages(backend: Backend, ref: string, flags: ListFlags): AsyncGenerator<SubmissionPage> {
  const query = { ...selectionQuery(flags), limit: flags.limit ?? (flags.all ? String(PAGE_LIMIT.max) : undefined), offset: flags.offset };
  const list = (query: QueryParams) => backend.call<SubmissionPage>("listSubmissions", { params: { id: ref }, query });
  let page = await list(query);
  yield page;
  while (flags.all && page.pagination.hasMore && page.pagination.nextCursor) {
    page = await list({ ...query, offset: undefined, after: page.pagination.nextCursor });
    yield page;
  }
}

/** Lists submissions in the format asked for; tsv, ndjson and csv are written page by page, as they come. */
export async function runSubmissionsList(ref: string, flags: ListFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const format: ListFormat = globals.json ? "json" : flags.format ? oneOf("--format", flags.format, LIST_FORMATS) : io.isTTY ? "table" : "tsv";
  await withBackend(globals, io.env, async (backend) => {
    const walk = pages(backend, ref, flags);
    const first = (await walk.next().catch((error) => Promise.reject(withFlagName(error, FLAGS)))).value as SubmissionPage;
    async function* submissions(): AsyncGenerator<Submission> {
      yield* first.submissions;
      for await (const page of walk) yield* page.submissions;
    }
    if (format === "csv" || format === "ndjson") {
      const chunks = exportChunks(format, first.fields, submissions(), {
        spamReason: flags.filter === "spam",
        payment: first.submissions.some((s) => s.payment !== undefined),
      });
      // JSON escapes control characters itself; raw CSV cells would reach a terminal as they were submitted.
      for await (const chunk of format === "csv" && io.isTTY ? terminalSafeChunks(chunks) : chunks) await io.write(chunk);
      return;
    }
    if (format === "tsv") {
      const cols = columns(first.fields, io);
      for await (const s of submissions()) await io.write(`${cols.map((c) => cellText(c.value(s))).join("\t")}\n`);
      return;
    }
    const all: Submission[] = [];
    for await (const s of submissions()) all.push(s);
    if (format === "json") return printList(io, all, [], { json: true });
    printList(io, all, columns(first.fields, io), { empty: "No submissions." });
    const { total, offset } = first.pagination;
    if (!flags.all && first.pagination.hasMore) {
      io.err(`Showing ${offset + 1}-${offset + all.length} of ${total}. More with --offset ${offset + all.length}, or all with --all.\n`);
    }
  });
}

/** One submission: its flags, then each field as `data.<name>`. */
function printSubmission(io: Io, submission: Submission, json: boolean | undefined): void {
  if (json) {
    printObject(io, { ...submission }, { json });
    return;
  }
  const { data, spamTokens, payment, ...rest } = submission;
  const tokens = spamTokens ? { spamTokens: spamTokens.join(", ") } : {};
  // A payment in one line: its state and amount, then Stripe's references.
  const paid = payment
    ? { payment: [payment.status, payment.amount, payment.currency, payment.sessionId, payment.paymentIntent].filter((v) => v !== null).join(" ") }
    : {};
  printObject(io, { ...rest, ...tokens, ...paid, ...Object.fromEntries(Object.entries(data).map(([name, value]) => [`data.${name}`, value])) });
}

export interface MarkFlags {
  read?: boolean;
  unread?: boolean;
  star?: boolean;
  unstar?: boolean;
  spam?: boolean;
  notSpam?: boolean;
}

/** The PATCH body for the mark flags; a flag and its opposite together are refused. */
export function markPatch(flags: MarkFlags): Record<string, boolean> {
  const patch: Record<string, boolean> = {};
  const pairs: [keyof MarkFlags, keyof MarkFlags, string][] = [
    ["read", "unread", "isRead"],
    ["star", "unstar", "isStarred"],
    ["spam", "notSpam", "isSpam"],
  ];
  for (const [on, off, field] of pairs) {
    if (flags[on] && flags[off]) throw new CliError(`--${on} and --${off === "notSpam" ? "not-spam" : off} contradict each other: give one`, EXIT.usage);
    if (flags[on]) patch[field] = true;
    if (flags[off]) patch[field] = false;
  }
  if (Object.keys(patch).length === 0) throw new CliError("nothing to mark: give --read, --unread, --star, --unstar, --spam or --not-spam", EXIT.usage);
  return patch;
}

const MARK_WORDS: Record<string, [string, string]> = { isRead: ["read", "unread"], isStarred: ["starred", "not starred"], isSpam: ["spam", "not spam"] };

/** Shows one submission: its flags and each field as data.<name>, or --json. */
export async function runSubmissionsGet(ref: string, id: string, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  printSubmission(
    io,
    await withBackend(globals, io.env, (backend) => backend.call<Submission>("getSubmission", { params: { id: ref, submissionId: id } })),
    globals.json,
  );
}

/** Sets a submission's flags and says which on stderr (with --json, the submission on stdout). */
export async function runSubmissionsMark(ref: string, id: string, flags: MarkFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const patch = markPatch(flags);
  const updated = await withBackend(globals, io.env, (backend) =>
    backend.call<Submission>("updateSubmission", { params: { id: ref, submissionId: id }, body: patch }),
  );
  io.err(
    `Marked ${updated.id} ${Object.entries(patch)
      .map(([field, on]) => MARK_WORDS[field]![on ? 0 : 1])
      .join(", ")}.\n`,
  );
  if (globals.json) printSubmission(io, updated, true);
}

/** Deletes one submission, for good. */
export async function runSubmissionsDelete(ref: string, id: string, globals: ConnectionOptions, io: Io): Promise<void> {
  await withBackend(globals, io.env, (backend) => backend.call("deleteSubmission", { params: { id: ref, submissionId: id } }));
  io.err(`Deleted submission ${id}.\n`);
}

export function submissionsCommand(program: Command, io: Io): void {
  const submissions = program
    .command("submissions")
    .description("read, export, mark and delete a form's submissions")
    .addHelpText("after", "\nExamples:\n  formsvc submissions list contact --since 24h\n  formsvc submissions export contact --output contact.csv\n");

  submissions
    .command("list <form>")
    .description("list a form's submissions, newest first (one page of 50 unless --limit or --all)")
    .option("--since <when>", "only those after WHEN: ISO 8601 (2026-11-22, 2026-11-22T12:00:00Z) or a span back (90s, 15m, 24h, 7d)")
    .option(
      "--limit <n>",
      `how many, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default}; with --all, the page size, default ${PAGE_LIMIT.max})`,
    )
    .option("--offset <n>", "how many to skip (default 0)")
    .option("--all", "walk every page")
    .option("--order <order>", "asc or desc by time (default desc)")
    .option("--filter <filter>", "all (kept: not spam, the default), unread, starred, spam, unconfirmed (double opt-in not yet confirmed) or awaiting_payment")
    .option("--payment <status>", "only those whose payment is paid, expired or refunded")
    .option("--format <format>", "table, tsv, json, ndjson or csv (default: table on a terminal, tsv when piped)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions list contact --filter unread\n  formsvc submissions list contact --since 24h --format ndjson | jq -r .data.email\n  formsvc submissions list contact --all --order asc --format csv > contact.csv\n",
    )
    .action((ref: string, flags: ListFlags, command: Command) => runSubmissionsList(ref, flags, command.optsWithGlobals(), io));

  exportCommand(submissions, io);

  submissions
    .command("get <form> <submission>")
    .description("show one submission")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions get contact sub_01jd3k4m5n6p7q8r9s0t1v2w3x\n  formsvc submissions get contact sub_01jd3k4m5n6p7q8r9s0t1v2w3x --json | jq .data\n",
    )
    .action((ref: string, id: string, _flags, command: Command) => runSubmissionsGet(ref, id, command.optsWithGlobals(), io));

  submissions
    .command("mark <form> <submission>")
    .description("mark a submission read or unread, starred or not, spam or not")
    .option("--read", "mark read")
    .option("--unread", "mark unread")
    .option("--star", "star it")
    .option("--unstar", "remove the star")
    .option("--spam", "mark as spam (it leaves the default list)")
    .option("--not-spam", "mark as not spam")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions mark contact sub_01jd3k4m5n6p7q8r9s0t1v2w3x --read --star\n  formsvc submissions mark contact sub_01jd3k4m5n6p7q8r9s0t1v2w3x --not-spam\n",
    )
    .action((ref: string, id: string, flags: MarkFlags, command: Command) => runSubmissionsMark(ref, id, flags, command.optsWithGlobals(), io));

  submissions
    .command("delete <form> <submission>")
    .description("delete one submission, for good")
    .addHelpText("after", "\nExample:\n  formsvc submissions delete contact sub_01jd3k4m5n6p7q8r9s0t1v2w3x\n")
    .action((ref: string, id: string, _flags, command: Command) => runSubmissionsDelete(ref, id, command.optsWithGlobals(), io));

  filesCommand(submissions, io);
  eraseCommand(submissions, io);
}
