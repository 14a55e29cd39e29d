import type { Command } from "commander";
import { INVITATION_DAYS } from "../src/domain/limits.ts";
import type { Role } from "../src/services/people/roles.ts";
import type { TeamActor } from "../src/services/people/team.ts";
import type { User } from "../src/services/people/users.ts";
import type { Services } from "../src/services/index.ts";
import { existingDatabase, localDatabase, openLocalServices } from "./backend.ts";
import { CliError, EXIT } from "./errors.ts";
import type { Io } from "./io.ts";
import { printList, printObject, type Column } from "./output.ts";

const COLUMNS: Column<User>[] = [
  { header: "id", value: (u) => u.id },
  { header: "email", value: (u) => u.email },
  { header: "role", value: (u) => u.role },
  { header: "forms", value: (u) => (u.formIds === null ? "all" : u.formIds.join(",")) },
  { header: "account", value: (u) => u.accountId },
  { header: "created", value: (u) => u.createdAt },
];

/** Users and links live in the database file: local mode only, on the server's machine. */
async function withLocal<T>(command: Command, io: Io, what: string, work: (services: Services) => Promise<T>, { create = false } = {}): Promise<T> {
  const location = localDatabase(command.optsWithGlobals(), io.env, what);
  const services = await openLocalServices(create ? location : existingDatabase(location), io.env);
  try {
    return await work(services);
  } finally {
    services.store.close();
  }
}

/** Reads stdin to its end; the password is its first line. */
async function readStdin(io: Io): Promise<string> {
  const text = await io.input();
  return text.replace(/\r?\n$/, "").split(/\r?\n/)[0] ?? "";
}

/** Runs `stty` on the terminal (to hide what is typed); nothing happens where there is none. */
function stty(arg: string): void {
  try {
    Bun.spawnSync(["stty", arg], { stdin: "inherit", stdout: "ignore", stderr: "ignore" });
  } catch {
    // No stty: the password is read as typed.
  }
}

/** The password for a new user: from stdin with --password-stdin, else asked twice on the terminal, unechoed. */
async function newPassword(io: Io, fromStdin: boolean): Promise<string> {
  if (fromStdin) return readStdin(io);
  if (!io.inIsTTY) throw new CliError("no terminal to ask the password on: pipe it in with --password-stdin", EXIT.usage);
  stty("-echo");
  try {
    const first = await io.prompt("Password (8 characters or more): ");
    io.err("\n");
    const second = await io.prompt("Password again: ");
    io.err("\n");
    if (first === null || second === null) throw new CliError("no password given", EXIT.usage);
    if (first !== second) throw new CliError("the two passwords differ", EXIT.usage);
    return first;
  } finally {
    stty("echo");
  }
}

/** The role and form limit of --role and --forms; a form is named by id or slug. */
async function membership(
  services: Services,
  accountId: string,
  options: { role?: string; forms?: string },
): Promise<{ role: Role; formIds: string[] | null }> {
  const { parseRole } = await import("../src/services/people/roles.ts");
  const role = parseRole(options.role ?? "owner", "--role");
  if (!options.forms) return { role, formIds: null };
  const { operator } = await import("../src/services/principal.ts");
  const formIds: string[] = [];
  for (const ref of options.forms
    .split(",")
    .map((f) => f.trim())
    .filter(Boolean)) {
    const row =
      (await services.forms.findRow(operator(accountId, "live"), ref).catch(() => null)) ??
      (await services.forms.findRow(operator(accountId, "test"), ref).catch(() => null));
    if (!row) throw new CliError(`no form ${ref} in this account. See: formsvc forms list`, EXIT.notFound);
    formIds.push(row.id);
  }
  return { role, formIds };
}

/** The local CLI as the team service knows it: the trusted operator, an owner of the account. */
const cliActor = (accountId: string): TeamActor => ({ accountId, role: "owner", userId: null });

/** The public base URL the server recorded, for links; FORMSVC_BASE_URL wins. */
const baseUrl = (services: Services) => services.urls.baseUrl();

export function usersCommand(program: Command, io: Io): void {
  const users = program
    .command("users")
    .description("manage the people who sign in to the dashboard (local mode only)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc users create ada@example.com\n  printf '%s\\n' \"$PASSWORD\" | formsvc users create ada@example.com --password-stdin\n  formsvc users list\n",
    );

  users
    .command("create <email>")
    .description("make a dashboard user of the account (--account, else the default one)")
    .option("--password-stdin", "read the password from stdin (its first line) instead of asking")
    .option("--role <role>", "owner, admin, editor or viewer (default owner)")
    .option("--forms <forms>", "limit an editor or viewer to these forms (ids or slugs, comma-separated)")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc users create ada@example.com\n  printf '%s\\n' \"$PASSWORD\" | formsvc users create ada@example.com --password-stdin --account acc_01jd3k4m\n",
    )
    .action(async (email: string, options: { passwordStdin?: boolean; role?: string; forms?: string }, command: Command) => {
      const password = await newPassword(io, Boolean(options.passwordStdin));
      const user = await withLocal(
        command,
        io,
        "users create",
        async (services) => {
          const accountId = (await services.accounts.resolve(command.optsWithGlobals().account)).id;
          const { role, formIds } = await membership(services, accountId, options);
          return services.users.create(accountId, email, password, role, formIds);
        },
        { create: true },
      );
      if (command.optsWithGlobals().json) printObject(io, { ...user }, { json: true });
      else io.err(`Made dashboard user ${user.email} (${user.id}).\n`);
    });

  users
    .command("list")
    .description("list dashboard users")
    .addHelpText("after", "\nExample:\n  formsvc users list --json | jq -r '.[].email'\n")
    .action(async (_options, command: Command) => {
      const list = await withLocal(command, io, "users list", (services) => services.users.list());
      printList(io, list, COLUMNS, { json: command.optsWithGlobals().json, empty: "No dashboard users yet. Make one with: formsvc users create EMAIL" });
    });

  users
    .command("delete <email>")
    .description("delete a dashboard user; their sessions end at once")
    .addHelpText("after", "\nExample:\n  formsvc users delete ada@example.com\n")
    .action(async (email: string, _options, command: Command) => {
      const user = await withLocal(command, io, "users delete", (services) => services.users.remove(email));
      io.err(`Deleted dashboard user ${user.email}.\n`);
    });

  users
    .command("reset-2fa <email>")
    .description("turn two-step sign-in off for a user who lost their phone and recovery codes (they set it up again after signing in)")
    .addHelpText("after", "\nExample:\n  formsvc users reset-2fa ada@example.com\n")
    .action(async (email: string, _options, command: Command) => {
      const reset = await withLocal(command, io, "users reset-2fa", (services) => services.twoStep.reset(email));
      io.err(
        reset
          ? `Two-step sign-in is off for ${email.trim().toLowerCase()}.\n`
          : `Two-step sign-in was not on for ${email.trim().toLowerCase()}: nothing changed.\n`,
      );
    });

  users
    .command("role <email> <role>")
    .description("give a user another role (owner, admin, editor, viewer) and, with --forms, limit them to some forms")
    .option("--forms <forms>", "limit an editor or viewer to these forms (ids or slugs, comma-separated); without it: every form")
    .addHelpText("after", "\nExamples:\n  formsvc users role ed@example.com editor\n  formsvc users role vi@example.com viewer --forms contact,newsletter\n")
    .action(async (email: string, roleName: string, options: { forms?: string }, command: Command) => {
      const user = await withLocal(command, io, "users role", async (services) => {
        const found = await services.users.findByEmail(email);
        if (!found) throw new CliError(`no dashboard user ${email}. See: formsvc users list`, EXIT.notFound);
        const wanted = await membership(services, found.accountId, { role: roleName, forms: options.forms });
        return services.team.setRole(cliActor(found.accountId), found.id, wanted);
      });
      if (command.optsWithGlobals().json) printObject(io, { ...user }, { json: true });
      else io.err(`${user.email} is now ${user.role}${user.formIds ? ` on ${user.formIds.length} forms` : ""}.\n`);
    });

  users
    .command("invite <email>")
    .description(`print a one-time link, valid ${INVITATION_DAYS} days, that lets this person choose a password and join with the role given`)
    .option("--role <role>", "owner, admin, editor or viewer (default viewer)")
    .option("--forms <forms>", "limit an editor or viewer to these forms (ids or slugs, comma-separated)")
    .addHelpText("after", "\nExample:\n  formsvc users invite ed@example.com --role editor\n")
    .action(async (email: string, options: { role?: string; forms?: string }, command: Command) => {
      const url = await withLocal(command, io, "users invite", async (services) => {
        const accountId = (await services.accounts.resolve(command.optsWithGlobals().account)).id;
        const wanted = await membership(services, accountId, { role: options.role ?? "viewer", forms: options.forms });
        const { token } = await services.team.invite(cliActor(accountId), email, wanted);
        return `${baseUrl(services)}/dashboard/invite?token=${token}`;
      });
      if (io.isTTY) io.err(`Invitation for ${email.trim().toLowerCase()}: it works once, within ${INVITATION_DAYS} days.\n`);
      io.out(`${url}\n`);
    });

  const dashboard = program
    .command("dashboard")
    .description("the web dashboard (local mode only)")
    .addHelpText("after", "\nExample:\n  formsvc dashboard link --email ada@example.com\n");
  dashboard
    .command("link")
    .description("print a one-time sign-in link, valid 15 minutes (with no user yet: a link that makes the first one)")
    .option("--email <email>", "the user to sign in as (needed when there are several)")
    .addHelpText("after", '\nExamples:\n  formsvc dashboard link --email ada@example.com\n  xdg-open "$(formsvc dashboard link)"\n')
    .action(async (options: { email?: string }, command: Command) => {
      const { SIGNIN_LINK_MS } = await import("../src/services/people/users.ts");
      const { url, sentence } = await withLocal(command, io, "dashboard link", async (services) => {
        const all = await services.users.list();
        if (all.length === 0) {
          if (options.email)
            throw new CliError(
              `no dashboard user ${options.email}: there are no users yet (open this command's link without --email to make the first)`,
              EXIT.notFound,
            );
          const token = await services.users.createLink("setup", null, SIGNIN_LINK_MS);
          return {
            url: `${baseUrl(services)}/dashboard/setup?token=${token}`,
            sentence: "No dashboard user yet: this link makes the first one. It works once, within 15 minutes.",
          };
        }
        let user: User | null | undefined;
        if (options.email) {
          user = await services.users.findByEmail(options.email);
          if (!user) throw new CliError(`no dashboard user ${options.email}. See: formsvc users list`, EXIT.notFound);
        } else if (all.length === 1) {
          user = all[0];
        } else {
          throw new CliError("there are several dashboard users: say which with --email", EXIT.usage);
        }
        const token = await services.users.createLink("signin", user!.id, SIGNIN_LINK_MS);
        return {
          url: `${baseUrl(services)}/dashboard/link?token=${token}`,
          sentence: `Sign-in link for ${user!.email}. It works once, within 15 minutes; set a new password on the page it opens if you lost yours.`,
        };
      });
      // Piped, the URL alone, so that `open "$(formsvc dashboard link)"` works.
      if (io.isTTY) io.err(`${sentence}\n`);
      io.out(`${url}\n`);
    });
}
