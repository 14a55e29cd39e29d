import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { Form } from "../src/domain/types.ts";
import type { FormsApi } from "../src/forms-as-code/file.ts";
import type { Plan } from "../src/forms-as-code/plan.ts";
import { type Backend, type ConnectionOptions, remoteUrl, withBackend } from "./backend.ts";
import { CliError, EXIT, ExitStatus, exitCodeFor } from "./errors.ts";
import type { Io } from "./io.ts";

// `formsvc pull`, `plan -f FILE`, `apply -f FILE` (docs/cli.md, "Forms as code"). plan exits 2 when there are
// changes, so that a script can ask; every other failure of these commands, a usage error too, exits 1.

type Globals = ConnectionOptions & { json?: boolean };

/** Exit 2 means "changes pending" here: an error that would exit 2 elsewhere (a bad value) exits 1. */
function asFileError(error: unknown): unknown {
  if (exitCodeFor(error) !== EXIT.usage) return error;
  return new CliError(error instanceof Error ? error.message : String(error), EXIT.error);
}

/** What plan, apply and pull need of an instance, as operations of the API called through the backend (either mode). */
async function formsApiOf(backend: Backend): Promise<FormsApi> {
  const { COLLECTIONS } = await import("../src/forms-as-code/schema.ts");
  const collections = Object.fromEntries(
    Object.entries(COLLECTIONS).map(([name, { operations: op }]) => [
      name,
      {
        list: async (ref: string) => (await backend.call<Record<string, object[]>>(op.list, { params: { id: ref } }))[op.field] ?? [],
        add: (ref: string, body: Record<string, unknown>) => backend.call(op.add, { params: { id: ref }, body }),
        remove: (ref: string, id: string) => backend.call<void>(op.remove, { params: { id: ref, [op.itemParam]: id } }),
        ...("update" in op && {
          update: (ref: string, id: string, body: Record<string, unknown>) => backend.call(op.update, { params: { id: ref, [op.itemParam]: id }, body }),
        }),
      },
    ]),
  );
  return {
    forms: {
      list: async () => (await backend.call<{ forms: Form[] }>("listForms")).forms,
      create: (body) => backend.call<Form>("createForm", { body }),
      update: (ref, body) => backend.call<Form>("updateForm", { params: { id: ref }, body }),
      remove: (ref) => backend.call<void>("deleteForm", { params: { id: ref } }),
    },
    ...collections,
  } as FormsApi;
}

/** The server's address (remote) or the one the server recorded (local), for the file's $schema. */
const baseUrlOf = (backend: Backend, globals: Globals, io: Io) => remoteUrl(globals, io.env) ?? backend.services?.urls.baseUrl() ?? "http://localhost:8080";

async function readPlan(file: string | undefined, flags: { prune?: boolean }, backend: Backend, io: Io): Promise<Plan> {
  if (!file) throw new CliError("name the forms file with -f FILE (formsvc pull writes one)", EXIT.error);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const [{ readFormsFile, FileError }, { planForms }] = await Promise.all([import("../src/forms-as-code/file.ts"), import("../src/forms-as-code/plan.ts")]);
  try {
    const desired = await readFormsFile(text, io.env);
    return await planForms(await formsApiOf(backend), desired, { prune: flags.prune });
  } catch (error) {
    if (error instanceof FileError) throw new CliError(`${file}: ${error.message}`, EXIT.error);
    throw error;
  }
}

/** Prints the plan on stdout, one line a change, coloured on a terminal; the count on stderr. */
async function printPlan(plan: Plan, io: Io): Promise<void> {
  const { planLines } = await import("../src/forms-as-code/plan.ts");
  const colour = { "+": io.chalk.green, "~": io.chalk.yellow, "-": io.chalk.red } as const;
  for (const line of planLines(plan)) io.out(`${colour[line[0] as keyof typeof colour](line)}\n`);
  const count = plan.changes.length;
  io.err(count === 0 ? "No changes: the forms are as the file says.\n" : `${count} change${count === 1 ? "" : "s"}.\n`);
}

/** `formsvc pull`: the account's forms (of the key's or --test's mode) as a forms file, on stdout. */
export async function runPull(globals: Globals, io: Io): Promise<void> {
  const { pullFormsFile } = await import("../src/forms-as-code/file.ts");
  const file = await withBackend(globals, io.env, async (backend) => pullFormsFile(await formsApiOf(backend), baseUrlOf(backend, globals, io)));
  io.out(`${JSON.stringify(file, null, 2)}\n`);
}

/** `formsvc plan -f FILE`: what apply would change; exit 0 with nothing to do, 2 with changes. */
export async function runPlan(flags: { file?: string; prune?: boolean }, globals: Globals, io: Io): Promise<number> {
  try {
    const plan = await withBackend(globals, io.env, (backend) => readPlan(flags.file, flags, backend, io));
    await printPlan(plan, io);
    return plan.changes.length === 0 ? EXIT.ok : 2;
  } catch (error) {
    throw asFileError(error);
  }
}

/** `formsvc apply -f FILE`: makes the plan's changes, after a yes (or --yes); nothing to do writes nothing. */
export async function runApply(flags: { file?: string; prune?: boolean; yes?: boolean }, globals: Globals, io: Io): Promise<void> {
  try {
    await withBackend(globals, io.env, async (backend) => {
      const plan = await readPlan(flags.file, flags, backend, io);
      await printPlan(plan, io);
      if (plan.changes.length === 0) return;
      if (!flags.yes) {
        if (!io.inIsTTY) throw new CliError("apply changes forms: pass --yes to apply without a question (no terminal to ask on)", EXIT.error);
        const answer = await io.prompt("Apply these changes? Type yes to go on: ");
        if (answer?.trim().toLowerCase() !== "yes") throw new CliError("nothing applied", EXIT.error);
      }
      const { applyPlan } = await import("../src/forms-as-code/plan.ts");
      const writes = await applyPlan(await formsApiOf(backend), plan);
      io.err(`Applied: ${writes} write${writes === 1 ? "" : "s"}.\n`);
    });
  } catch (error) {
    throw asFileError(error);
  }
}

/** `formsvc pull`, `formsvc plan`, `formsvc apply`. */
export function formsFileCommands(program: Command, io: Io): void {
  const globals = () => program.opts<Globals>();
  program
    .command("pull")
    .description(`print the forms as a forms file (formsvc.json): every setting that is not its default, secrets as \${FORMSVC_…} references`)
    .addHelpText("after", "\nExamples:\n  formsvc pull > formsvc.json\n  FORMSVC_URL=https://forms.example.com FORMSVC_KEY=$KEY formsvc pull > formsvc.json\n")
    .action(async () => runPull(globals(), io));
  program
    .command("plan")
    .description("show what apply would change, one line a change (+ added, ~ changed, - removed); exit 0 with none, 2 with some")
    .option("-f, --file <file>", "the forms file")
    .option("--prune", "forms the file does not name are deleted too")
    .addHelpText("after", "\nExamples:\n  formsvc plan -f formsvc.json\n  formsvc plan -f formsvc.json || [ $? -eq 2 ]   # 2: changes pending\n")
    .action(async (flags: { file?: string; prune?: boolean }) => {
      const code = await runPlan(flags, globals(), io);
      if (code !== EXIT.ok) throw new ExitStatus(code);
    });
  program
    .command("apply")
    .description("make the forms what the file says (asks first on a terminal); a second apply changes nothing")
    .option("-f, --file <file>", "the forms file")
    .option("--prune", "delete the forms the file does not name")
    .option("--yes", "apply without asking")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc apply -f formsvc.json\n  formsvc apply --yes -f formsvc.json   # in CI, with FORMSVC_URL, FORMSVC_KEY and the file's secrets set\n",
    )
    .action(async (flags: { file?: string; prune?: boolean; yes?: boolean }) => runApply(flags, globals(), io));
}
