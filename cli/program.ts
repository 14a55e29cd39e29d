import { Command, CommanderError } from "commander";
import { accountsCommand } from "./accounts.ts";
import { activityCommand } from "./activity.ts";
import { backupCommand } from "./backup.ts";
import { completionCommand } from "./completion.ts";
import { EXIT, ExitStatus, exitCodeFor, USAGE_EXITS_1 } from "./errors.ts";
import { formsCommand } from "./forms.ts";
import { formsFileCommands } from "./plan.ts";
import { mcpCommand } from "./mcp.ts";
import type { Io } from "./io.ts";
import { installCommand } from "./install.ts";
import { keysCommand } from "./keys.ts";
import { migrateCommand } from "./migrate.ts";
import { notificationsCommand } from "./notifications.ts";
import { cellText } from "./output.ts";
import { restoreCommand } from "./restore.ts";
import { serveCommand } from "./serve.ts";
import { submissionsCommand } from "./submissions.ts";
import { updateCommand } from "./update.ts";
import { usersCommand } from "./users.ts";
import { versionCommand } from "./version.ts";
import { webhooksCommand } from "./webhooks.ts";
import { buildInfo } from "../src/lib/release.ts";
import { destinationsCommand } from "./destinations.ts";

const HELP_FOOTER = `
Local mode works on the database file (--db, FORMSVC_DB, default ./formsvc.db); remote mode on a server
(--url and --key, or FORMSVC_URL and FORMSVC_KEY). Every command takes --help.

Examples:
  formsvc serve --db ./formsvc.db
  KEY=$(formsvc keys create --name laptop)
  FORMSVC_URL=https://forms.example.com FORMSVC_KEY=$KEY formsvc submissions list contact --since 24h

Exit codes: 0 ok, 1 error, 2 bad usage, 4 authentication or permission refused, 5 not found.
`;

/** Each top-level command (or pair: users and dashboard) and what registers it, in the order help lists them. */
const COMMANDS: [names: string[], register: (program: Command, io: Io) => void][] = [
  [["serve"], serveCommand],
  [["accounts"], accountsCommand],
  [["keys"], keysCommand],
  [["activity"], activityCommand],
  [["forms"], formsCommand],
  [["submissions"], submissionsCommand],
  [["notifications"], notificationsCommand],
  [["webhooks"], webhooksCommand],
  [["destinations"], destinationsCommand],
  [["pull", "plan", "apply"], formsFileCommands],
  [["mcp"], mcpCommand],
  [["backup"], backupCommand],
  [["users", "dashboard"], usersCommand],
  [["restore"], restoreCommand],
  [["migrate"], migrateCommand],
  [["version"], versionCommand],
  [["update"], updateCommand],
  [["install"], installCommand],
];

/** The program's options that take a value: the word after one is that value, not a command. */
const VALUE_OPTIONS = new Set(["--db", "--url", "--key", "--account"]);

/**
 * The top-level command argv runs, when it is one of COMMANDS, else undefined. Registering only that command
 * saves every start building the whole tree (several ms, and memory for its hundred-odd options); help,
 * an unknown or misspelt command and `completion` get the whole tree.
 */
function commandNamed(argv: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (VALUE_OPTIONS.has(arg)) i++;
    else if (!arg.startsWith("-")) return COMMANDS.some(([names]) => names.includes(arg)) ? arg : undefined;
  }
  return undefined;
}

/**
 * The command tree; each group adds its own commands. A start builds the group it runs (all of them for help,
 * completion or a misspelt command), and a group's module registers its commands cheaply and loads what they
 * run on use: at its top it imports only commander, cli/ helpers and light src/ modules (types, errors, lib/time); the database and services come
 * through withBackend, and anything else heavy (the server, the dashboard, mail) by `await import()` in the
 * action. test/process/startup.test.ts fails, naming the module, when a start would load more (docs/cli.md,
 * "Adding a command").
 */
export function buildProgram(io: Io, argv: string[] = []): Command {
  const program = new Command("formsvc")
    .description("A self-hosted form backend: serve forms, manage them and read their submissions.")
    .version(buildInfo().version, "-V, --version", "print the version")
    .option("--db <path>", "database file for local mode (FORMSVC_DB, default ./formsvc.db)")
    .option("--url <url>", "server address for remote mode (FORMSVC_URL)")
    .option("--key <key>", "API key for remote mode (FORMSVC_KEY)")
    .option("--account <id>", "local mode: the account to act for (default: the default account)")
    .option("--test", "local mode: work on test-mode forms and keys")
    .option("--json", "print the API's JSON objects")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      // One line, as every other error: commander's "(Did you mean forms?)" joins the sentence.
      outputError: (text, write) =>
        write(
          `formsvc: ${text
            .replace(/^error: /, "")
            .trim()
            .replace(/\s*\n\s*/g, " ")} (see --help)\n`,
        ),
    });
  const named = commandNamed(argv);
  for (const [names, register] of COMMANDS) if (!named || names.includes(named)) register(program, io);
  if (!named) completionCommand(program, io);
  program.addHelpText("after", HELP_FOOTER);
  for (const command of program.commands) inherit(command, program);
  return program;
}

/** Subcommands write where the program writes and stop the way it does. */
function inherit(command: Command, program: Command): void {
  command.exitOverride().configureOutput(program.configureOutput());
  for (const sub of command.commands) inherit(sub, program);
}

/** Runs the CLI and returns its exit code; every error becomes one line on stderr, never a stack. */
export async function main(argv: string[], io: Io): Promise<number> {
  const program = buildProgram(io, argv);
  try {
    await program.parseAsync(argv, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ExitStatus) return error.exitCode;
    if (error instanceof CommanderError) {
      // --help and --version end in a CommanderError too, with exit code 0.
      if (error.exitCode === 0) return EXIT.ok;
      return USAGE_EXITS_1.has(commandNamed(argv) ?? "") ? EXIT.error : EXIT.usage;
    }
    // One line, and nothing a terminal would act on: a remote server's message is not ours to trust.
    io.err(`formsvc: ${cellText(error instanceof Error ? error.message : String(error))}\n`);
    return exitCodeFor(error);
  }
}
