import type { Command } from "commander";
import type { Erasure } from "../src/services/retention.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { CliError, EXIT, withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { cellText, printList } from "./output.ts";

export interface EraseFlags {
  email: string;
  dryRun?: boolean;
  yes?: boolean;
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** What was (or would be) erased: one row per form on stdout, or the API's object with --json. */
function printErasure(io: Io, result: Erasure, json: boolean | undefined): void {
  if (json) return void io.out(`${JSON.stringify(result, null, 2)}\n`);
  const rows = Object.entries(result.forms).map(([form, n]) => ({ form, n }));
  if (rows.length === 0) return;
  printList(
    io,
    rows,
    [
      { header: "form", value: (r) => r.form },
      { header: result.dryRun ? "would erase" : "erased", value: (r) => r.n },
    ],
    { empty: "" },
  );
}

/**
 * Erases every submission of the account (and mode) that holds the address, with its files. On a terminal it
 * shows what would go and asks; without a terminal to ask on it needs --yes. --dry-run only counts.
 */
export async function runErase(flags: EraseFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const rethrow = (error: unknown) => Promise.reject(withFlagName(error, { email: "--email" }));
  await withBackend(globals, io.env, async (backend) => {
    const erase = (body: { email: string; dryRun?: boolean }) => backend.call<Erasure>("eraseSubmissions", { body });
    const email = flags.email;
    if (flags.dryRun) {
      const preview = await erase({ email, dryRun: true }).catch(rethrow);
      printErasure(io, preview, globals.json);
      io.err(
        `Would erase ${plural(preview.erased, "submission")} holding ${cellText(email.trim())} from ${plural(Object.keys(preview.forms).length, "form")}. Nothing was erased.\n`,
      );
      return;
    }
    if (!flags.yes) {
      if (!io.inIsTTY) throw new CliError("refusing to erase without --yes: stdin is not a terminal to confirm on (try --dry-run first)", EXIT.usage);
      const preview = await erase({ email, dryRun: true }).catch(rethrow);
      if (preview.erased === 0) {
        io.err(`No submission holds ${cellText(email.trim())}: nothing to erase.\n`);
        printErasure(io, preview, globals.json);
        return;
      }
      const answer = await io.prompt(
        `Erase ${plural(preview.erased, "submission")} holding ${cellText(email.trim())}, with their files, from ${plural(Object.keys(preview.forms).length, "form")}? This cannot be undone.\nType yes to confirm: `,
      );
      if (answer?.trim().toLowerCase() !== "yes") throw new CliError("nothing erased: the answer was not yes");
    }
    const result = await erase({ email }).catch(rethrow);
    printErasure(io, result, globals.json);
    io.err(`Erased ${plural(result.erased, "submission")} holding ${cellText(email.trim())} from ${plural(Object.keys(result.forms).length, "form")}.\n`);
  });
}

/** `formsvc submissions erase --email E [--dry-run] [--yes]`. */
export function eraseCommand(submissions: Command, io: Io): void {
  submissions
    .command("erase")
    .description("erase every submission holding an email address, in every form of the account, with its files (a GDPR request)")
    .requiredOption("--email <address>", "the address: a field equal to it (trimmed, any case) marks a submission")
    .option("--dry-run", "only count what would be erased")
    .option("-y, --yes", "do not ask; needed when stdin is not a terminal")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc submissions erase --email ann@example.com --dry-run\n  formsvc submissions erase --email ann@example.com --yes\n",
    )
    .action((flags: EraseFlags, command: Command) => runErase(flags, command.optsWithGlobals(), io));
}
