import type { Command } from "commander";
import type { ApiKey, NewApiKey } from "../src/services/keys.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
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

/** The flags of `keys create`. */
export interface KeyCreateFlags {
  type?: string;
  form?: string;
  permissions?: string;
  name?: string;
}

type Globals = ConnectionOptions & { json?: boolean };

/** Makes a key: the key alone on stdout (so that KEY=$(formsvc keys create) works), the words on stderr; or --json. */
export async function runKeysCreate(flags: KeyCreateFlags, globals: Globals, io: Io): Promise<void> {
  const body: Record<string, unknown> = {};
  if (flags.type !== undefined) body.type = flags.type;
  if (flags.form !== undefined) body.formId = flags.form;
  if (flags.permissions !== undefined) body.permissions = flags.permissions.split(",");
  if (flags.name !== undefined) body.name = flags.name;
  const created = await withBackend(globals, io.env, (backend) => backend.call<NewApiKey>("createKey", { body }), { create: true });
  if (globals.json) {
    io.out(`${JSON.stringify(created, null, 2)}\n`);
    return;
  }
  io.err(`Made ${created.type} key ${created.id} (${created.permissions.join(", ")}). It is shown only now: keep it safe.\n`);
  io.out(`${created.key}\n`);
}

/** Lists the keys (never their secrets): a table on a terminal, tab-separated piped, or --json. */
export async function runKeysList(globals: Globals, io: Io): Promise<void> {
  const list = await withBackend(globals, io.env, (backend) => backend.call<{ keys: ApiKey[] }>("listKeys"));
  printList(io, list.keys, COLUMNS(io), { json: globals.json, empty: "No keys yet. Make one with: formsvc keys create" });
}

/** Revokes a key; it stops working at once. */
export async function runKeysRevoke(keyId: string, globals: Globals, io: Io): Promise<void> {
  await withBackend(globals, io.env, (backend) => backend.call("revokeKey", { params: { keyId } }));
  io.err(`Revoked ${keyId}.\n`);
}

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
    .action((flags: KeyCreateFlags, command: Command) => runKeysCreate(flags, command.optsWithGlobals(), io));

  keys
    .command("list")
    .description("list keys (never their secrets)")
    .addHelpText("after", "\nExample:\n  formsvc keys list --json | jq -r '.[] | select(.revokedAt == null) | .id'\n")
    .action((_options, command: Command) => runKeysList(command.optsWithGlobals(), io));

  keys
    .command("revoke <keyId>")
    .description("revoke a key: it stops working at once")
    .addHelpText("after", "\nExample:\n  formsvc keys revoke key_01jd3k4m5n6p7q8r9s0t1v2w3x\n")
    .action((keyId: string, _options, command: Command) => runKeysRevoke(keyId, command.optsWithGlobals(), io));
}
