import type { Command } from "commander";
import type { ApiKey, NewApiKey } from "../src/services/keys.ts";
import { withBackend } from "./backend.ts";
import type { Io } from "./io.ts";
import { printList, type Column } from "./output.ts";

const COLUMNS = (io: Io): Column<ApiKey>[] => [
  { header: "id", value: (k) => k.id },
  { header: "type", value: (k) => k.type },
  { header: "prefix", value: (k) => k.prefix },
  { header: "permissions", value: (k) => k.permissions.join(",") },
  { header: "form", value: (k) => k.formId ?? "" },
  { header: "name", value: (k) => k.name ?? "" },
  { header: "created", value: (k) => k.createdAt },
  {
    header: "status",
    value: (k) => (k.revokedAt ? `revoked ${k.revokedAt}` : "active"),
    style: (text, k) => (k.revokedAt ? io.chalk.red(text) : io.chalk.green(text)),
  },
];

export function keysCommand(program: Command, io: Io): void {
  const keys = program
    .command("keys")
    .description("make, list and revoke API keys")
    .addHelpText("after", "\nExamples:\n  KEY=$(formsvc keys create --name laptop)\n  formsvc keys list\n");

  keys
    .command("create")
    .description("make an API key; the key is shown once, here")
    .option("--type <type>", "live, test or form (default: the mode you act in: test with --test or a test key, else live)")
    .option("--form <form>", "the form (id or slug) a form-level key is bound to")
    .option("--permissions <list>", "comma-separated: read,write,delete,admin (default: all for live/test keys, read for form keys)")
    .option("--name <text>", "a name to tell the key apart in lists")
    .addHelpText(
      "after",
      "\nExamples:\n  KEY=$(formsvc keys create --name laptop)\n  formsvc keys create --type form --form contact --permissions read --json\n",
    )
    .action(async (options: { type?: string; form?: string; permissions?: string; name?: string }, command: Command) => {
      const globals = command.optsWithGlobals();
      const body: Record<string, unknown> = {};
      if (options.type !== undefined) body.type = options.type;
      if (options.form !== undefined) body.formId = options.form;
      if (options.permissions !== undefined) body.permissions = options.permissions.split(",");
      if (options.name !== undefined) body.name = options.name;
      const created = await withBackend(globals, io.env, (backend) => backend.call<NewApiKey>("createKey", { body }), { create: true });
      if (globals.json) {
        io.out(`${JSON.stringify(created, null, 2)}\n`);
        return;
      }
      // The key alone on stdout, so that KEY=$(formsvc keys create) works; the words go to stderr.
      io.err(`Made ${created.type} key ${created.id} (${created.permissions.join(", ")}). It is shown only now: keep it safe.\n`);
      io.out(`${created.key}\n`);
    });

  keys
    .command("list")
    .description("list keys (never their secrets)")
    .addHelpText("after", "\nExample:\n  formsvc keys list --json | jq -r '.[] | select(.revokedAt == null) | .id'\n")
    .action(async (_options, command: Command) => {
      const globals = command.optsWithGlobals();
      const list = await withBackend(globals, io.env, (backend) => backend.call<{ keys: ApiKey[] }>("listKeys"));
      printList(io, list.keys, COLUMNS(io), { json: globals.json, empty: "No keys yet. Make one with: formsvc keys create" });
    });

  keys
    .command("revoke <keyId>")
    .description("revoke a key: it stops working at once")
    .addHelpText("after", "\nExample:\n  formsvc keys revoke key_01jd3k4m5n6p7q8r9s0t1v2w3x\n")
    .action(async (keyId: string, _options, command: Command) => {
      await withBackend(command.optsWithGlobals(), io.env, (backend) => backend.call("revokeKey", { params: { keyId } }));
      io.err(`Revoked ${keyId}.\n`);
    });
}
