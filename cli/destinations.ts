import { readFileSync } from "node:fs";
import type { Command } from "commander";
import { DESTINATION_TYPES } from "../src/services/outbox/destination-types/index.ts";
import type { Destination, DestinationTestResult } from "../src/services/outbox/destinations.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { CliError, EXIT, withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";
import { printList, type Column } from "./output.ts";

// Destinations of a form (docs/cli.md): their secrets go in from a file and never come back out.

const FLAGS = { type: "TYPE", config: "--config-file", fields: "--fields-file", when: "--when-file" };

type Globals = ConnectionOptions & { json?: boolean };

const COLUMNS: Column<Destination>[] = [
  { header: "id", value: (d) => d.id },
  { header: "type", value: (d) => d.type },
  { header: "enabled", value: (d) => (d.enabled ? "yes" : "no") },
  // Every key the answer holds is one that may be shown: the secrets are not in it.
  {
    header: "config",
    value: (d) =>
      Object.entries(d.config)
        .map(([key, value]) => `${key}=${String(value)}`)
        .join(" "),
  },
  {
    header: "fields",
    value: (d) =>
      d.fields
        ? Object.entries(d.fields)
            .map(([from, to]) => `${from}→${to}`)
            .join(", ")
        : "all",
  },
  { header: "when", value: (d) => d.when.map((c) => `${c.field} ${c.op}${c.value === undefined ? "" : ` ${JSON.stringify(c.value)}`}`).join(" and ") },
  { header: "created", value: (d) => d.createdAt },
];

/** The JSON a --…-file flag names (`-` reads stdin). */
function jsonFile(flag: string, path: string, shape: string): unknown {
  let text: string;
  try {
    text = readFileSync(path === "-" ? 0 : path, "utf8");
  } catch (error) {
    throw new CliError(`${flag}: cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, EXIT.usage);
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new CliError(`${flag}: ${path} is not JSON: it must hold ${shape}`, EXIT.usage);
  }
}

export interface AddFlags {
  configFile: string;
  fieldsFile?: string;
  whenFile?: string;
}

/** Adds a destination to a form from its files and prints it (without its secrets). */
export async function runDestinationsAdd(ref: string, type: string, flags: AddFlags, globals: Globals, io: Io): Promise<void> {
  const body: Record<string, unknown> = { type, config: jsonFile("--config-file", flags.configFile, 'the type\'s settings, such as {"topic": "forms"}') };
  if (flags.fieldsFile) body.fields = jsonFile("--fields-file", flags.fieldsFile, 'a map such as {"email": "Email address"}');
  if (flags.whenFile) body.when = jsonFile("--when-file", flags.whenFile, 'a list such as [{"field": "topic", "op": "equals", "value": "sales"}]');
  const made = await withBackend(globals, io.env, (backend) => backend.call<Destination>("createDestination", { params: { id: ref }, body })).catch((error) =>
    Promise.reject(withFlagName(error, FLAGS)),
  );
  if (globals.json) io.out(`${JSON.stringify(made, null, 2)}\n`);
  else io.out(`${made.id}\n`);
  io.err(`Made ${made.type} destination ${made.id}. Try it with: formsvc destinations test ${ref} ${made.id}\n`);
}

/** Sends a test submission and says what the service answered; a refusal exits 1. */
export async function runDestinationsTest(ref: string, destinationId: string, globals: Globals, io: Io): Promise<void> {
  const result: DestinationTestResult = await withBackend(globals, io.env, (backend) =>
    backend.call<DestinationTestResult>("testDestination", { params: { id: ref, destinationId } }),
  );
  if (globals.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
  if (result.ok) {
    io.err(`Sent: the service answered ${result.responseStatus} in ${result.durationMs} ms.\n`);
    return;
  }
  throw new CliError(`The test was refused: ${result.error ?? `answered ${result.responseStatus}`}`, EXIT.error);
}

export function destinationsCommand(program: Command, io: Io): void {
  const destinations = program
    .command("destinations")
    .description("send each kept submission of a form to Google Sheets, Airtable, Notion, Mailchimp, Telegram, Teams or ntfy")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc destinations add contact ntfy --config-file ntfy.json\n  formsvc destinations list contact\n  formsvc destinations test contact dst_01jd3k4m5n6p7q8r9s0t1v2w3x\n  formsvc webhooks deliveries contact\n",
    );

  destinations
    .command("add <form> <type>")
    .description(`add a destination: ${DESTINATION_TYPES.join(", ")} (settings in docs/api.md)`)
    .requiredOption("--config-file <file>", "JSON of the type's settings, secrets included (- reads stdin); secrets are never printed back")
    .option("--fields-file <file>", 'JSON map of form fields to the destination\'s names, such as {"email": "Email address"}')
    .option("--when-file <file>", 'JSON list of conditions, such as [{"field": "topic", "op": "equals", "value": "sales"}]')
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc destinations add contact airtable --config-file airtable.json --fields-file fields.json\n" +
        "  formsvc destinations add contact google_sheets --config-file sheets.json\n" +
        '  echo \'{"topic": "my-forms"}\' | formsvc destinations add contact ntfy --config-file -\n',
    )
    .action((ref: string, type: string, flags: AddFlags, command: Command) => runDestinationsAdd(ref, type, flags, command.optsWithGlobals(), io));

  destinations
    .command("list <form>")
    .description("list a form's destinations (secrets never shown)")
    .addHelpText("after", "\nExample:\n  formsvc destinations list contact --json | jq -r '.[].id'\n")
    .action(async (ref: string, _flags, command: Command) => {
      const globals = command.optsWithGlobals();
      const { destinations: list } = await withBackend(globals, io.env, (backend) =>
        backend.call<{ destinations: Destination[] }>("listDestinations", { params: { id: ref } }),
      );
      printList(io, list, COLUMNS, { json: globals.json, empty: "No destinations. Add one with: formsvc destinations add FORM TYPE --config-file F" });
    });

  destinations
    .command("remove <form> <destination>")
    .description("remove a destination; its pending deliveries are not sent")
    .action(async (ref: string, destinationId: string, _flags, command: Command) => {
      await withBackend(command.optsWithGlobals(), io.env, (backend) => backend.call("deleteDestination", { params: { id: ref, destinationId } }));
      io.err(`Removed destination ${destinationId}.\n`);
    });

  destinations
    .command("test <form> <destination>")
    .description("send a made-up submission to a destination now and say what its service answered")
    .action((ref: string, destinationId: string, _flags, command: Command) => runDestinationsTest(ref, destinationId, command.optsWithGlobals(), io));
}
