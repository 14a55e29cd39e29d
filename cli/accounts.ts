import type { Command } from "commander";
import type { Account } from "../src/services/accounts.ts";
import { existingDatabase, localDatabase, openLocalServices } from "./backend.ts";
import type { Io } from "./io.ts";
import { printList, printObject, type Column } from "./output.ts";

const COLUMNS: Column<Account>[] = [
  { header: "id", value: (a) => a.id },
  { header: "name", value: (a) => a.name },
  { header: "default", value: (a) => (a.isDefault ? "yes" : "") },
  { header: "created", value: (a) => a.createdAt },
];

/** Accounts live in the database file: only local mode manages them; only `create` may start a new file. */
async function localServices(command: Command, io: Io, { create = false } = {}) {
  const location = localDatabase(command.optsWithGlobals(), io.env, "accounts");
  return openLocalServices(create ? location : existingDatabase(location), io.env);
}

export function accountsCommand(program: Command, io: Io): void {
  const accounts = program
    .command("accounts")
    .description("make and list accounts (local mode only)")
    .addHelpText("after", "\nExamples:\n  formsvc accounts create 'Acme Ltd'\n  formsvc accounts list\n");
  accounts
    .command("create <name>")
    .description("make an account; forms and keys belong to one account")
    .addHelpText("after", "\nExample:\n  formsvc accounts create 'Acme Ltd' --db ./formsvc.db\n")
    .action(async (name: string, _options, command: Command) => {
      const services = await localServices(command, io, { create: true });
      try {
        const account = await services.accounts.create(name);
        printObject(io, { ...account }, { json: command.optsWithGlobals().json });
      } finally {
        services.store.close();
      }
    });
  accounts
    .command("list")
    .description("list accounts")
    .addHelpText("after", "\nExample:\n  formsvc accounts list --json | jq -r '.[].id'\n")
    .action(async (_options, command: Command) => {
      const services = await localServices(command, io);
      try {
        printList(io, await services.accounts.list(), COLUMNS, { json: command.optsWithGlobals().json, empty: "No accounts yet." });
      } finally {
        services.store.close();
      }
    });
}
