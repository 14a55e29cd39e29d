import type { Command } from "commander";
import { PAGE_LIMIT } from "../src/domain/limits.ts";
import type { Activity, ActivityPage } from "../src/services/people/activity.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { printList, type Column } from "./output.ts";

const FLAGS = { limit: "--limit", after: "--after" };

const COLUMNS: Column<Activity>[] = [
  { header: "at", value: (a) => a.at },
  { header: "actor", value: (a) => a.actor },
  { header: "action", value: (a) => a.action },
  { header: "target", value: (a) => a.target },
  { header: "summary", value: (a) => a.summary },
];

/** Lists the account's activity log, newest first: a table on a terminal, tab-separated piped, or --json. */
export async function runActivity(flags: { limit?: string; after?: string }, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const page = await withBackend(globals, io.env, (backend) =>
    backend
      .call<ActivityPage>("listActivity", { query: { limit: flags.limit, after: flags.after } })
      .catch((error) => Promise.reject(withFlagName(error, FLAGS))),
  );
  printList(io, page.activity, COLUMNS, { json: globals.json, empty: "No activity yet." });
  if (!globals.json && io.isTTY && page.pagination.nextCursor) io.err(`Older entries with --after ${page.pagination.nextCursor}.\n`);
}

export function activityCommand(program: Command, io: Io): void {
  program
    .command("activity")
    .description("who did what in the account (people, keys, the command line), newest first; an admin key in remote mode")
    .option("--limit <n>", `how many, ${PAGE_LIMIT.min} to ${PAGE_LIMIT.max} (default ${PAGE_LIMIT.default})`)
    .option("--after <id>", "the entries older than this one (the id the previous page ended on)")
    .addHelpText("after", "\nExamples:\n  formsvc activity --limit 20\n  formsvc activity --json | jq -r '.[] | [.at, .actor, .summary] | @tsv'\n")
    .action(async (flags: { limit?: string; after?: string }, command: Command) => runActivity(flags, command.optsWithGlobals(), io));
}
