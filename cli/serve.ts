import { type Command, Option } from "commander";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { BackupStatus } from "../src/workers/backups.ts";
import { SETTINGS } from "../src/config-settings.ts";
import type { ServeConfig, ServeFlags } from "../src/config.ts";
import { isLibsqlUrl } from "../src/db/location.ts";
import { asciiAddress } from "../src/lib/mail-address.ts";
import { selfCommand } from "../src/lib/self-command.ts";
import { CliError } from "./errors.ts";
import type { Io } from "./io.ts";

export interface ServeOptions extends ServeFlags {}

/** Where notifications go, or that mail is off and how to turn it on; no password or key is ever shown. */
function mailStatus(config: ServeConfig, shown: (url: string) => string): string {
  const from = config.mailFrom.name ? `${config.mailFrom.name} <${config.mailFrom.address}>` : config.mailFrom.address;
  if (config.mailUrl) {
    const sending = `notification emails go out through ${shown(config.mailUrl)}, from ${from}\n`;
    // A sender with no ASCII form is refused by every server that does not offer SMTPUTF8: said now, not at the first send.
    if (asciiAddress(config.mailFrom.address) !== null) return sending;
    return `${sending}warning: the sender address ${config.mailFrom.address} (--mail-from) needs a mail server that offers SMTPUTF8; with one that does not, every email is refused (the delivery log says why). An ASCII address goes everywhere.\n`;
  }
  return (
    "mail is off: notifications of live forms are kept pending, not sent. Turn it on with\n" +
    "  --mail-url smtp://user:pass@mail.example.com:587 or postmark://TOKEN@ (or FORMSVC_MAIL_URL) and --mail-from (FORMSVC_MAIL_FROM)\n"
  );
}

/** The backup schedule as the start lines show it: where, how often, how many, and the last good copy. */
function backupLine(status: BackupStatus): string {
  const every = status.everyMs % 3_600_000 === 0 ? `${status.everyMs / 3_600_000}h` : `${status.everyMs / 1000}s`;
  const where = status.s3 ? `${status.dir} and ${status.s3}` : status.dir;
  const last = status.lastSuccessAt === null ? "none yet" : `${new Date(status.lastSuccessAt).toISOString()} (${status.lastFile})`;
  return `backups every ${every} to ${where}, the last ${status.keep} kept; last backup: ${last}\n`;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** Where links take the public address from when --base-url is not set: learnt behind a trusted proxy, or a warning. */
function publicAddressNote(config: ServeConfig, linkBase: string): string {
  if (!config.derived.baseUrl) return "";
  if (config.trustProxy) {
    if (linkBase !== config.baseUrl) return `public address ${linkBase}, learnt through the proxy; --base-url names another\n`;
    return (
      "public address: answers follow each request's X-Forwarded-Proto and X-Forwarded-Host (or Forwarded) from the proxy, as --base-url is not set; " +
      "links in mail and webhooks never come from a request's headers: they will use the address of the first signed-in person or key to come " +
      `through the proxy, and until then ${config.baseUrl}\n`
    );
  }
  if (LOOPBACK.has(config.host)) return "";
  return (
    `warning: links (submitUrl, redirects, the setup link) point at ${config.baseUrl}, which is not a public address: ` +
    "set --base-url https://forms.example.com (FORMSVC_BASE_URL), or --trust-proxy behind a proxy that sends X-Forwarded-Proto and X-Forwarded-Host\n"
  );
}

/**
 * Makes the database's directory when it is missing (0700: it will hold submissions and key hashes), or
 * says in one line why it cannot; a raw ENOENT from deep in SQLite tells a new owner nothing.
 */
function ensureDatabaseDirectory(db: string, io: Io): void {
  if (db === ":memory:" || isLibsqlUrl(db)) return;
  const dir = dirname(resolve(db));
  if (existsSync(dir)) return;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new CliError(
      `the directory of the database, ${dir}, does not exist and cannot be made (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}): make it, owned by the user formsvc runs as`,
    );
  }
  io.err(`made the directory ${dir} for the database\n`);
}

/** Serves until SIGINT or SIGTERM; on a database with no key, says how to make the first one. */
export async function runServe(options: ServeOptions, io: Io): Promise<void> {
  // The server is loaded when serve runs, not by every command of the CLI.
  const [{ loadServeConfig, shownMailUrl }, { startServer }, { SETUP_LINK_MS }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/server.ts"),
    import("../src/services/people/users.ts"),
  ]);
  const config = loadServeConfig(options, io.env);
  ensureDatabaseDirectory(config.db, io);
  const server = await startServer(config);
  const { from, to } = server.schema;
  if (from !== to) io.err(from === 0 ? `database schema ${from} → ${to} (new database)\n` : `database schema ${from} → ${to}\n`);
  if (server.schemaBackup) io.err(`the database was backed up before it was migrated, to ${server.schemaBackup}\n`);
  // The address actually bound (0.0.0.0 is every interface), then where this machine reaches it.
  io.err(`formsvc listening on ${server.bound}, ${server.url} (database ${config.db})\n`);
  if (config.baseUrl !== server.url) io.err(`public address ${config.baseUrl}\n`);
  io.err(publicAddressNote(config, server.services.urls.baseUrl()));
  if (server.metricsUrl) io.err(`metrics at ${server.metricsUrl}\n`);
  else if (config.metrics) io.err(`metrics at ${server.url}/metrics\n`);
  io.err(`forms take submissions at ${config.submitUrl}/f/{slug}\n`);
  io.err(mailStatus(config, shownMailUrl));
  if (server.backups) io.err(backupLine(server.backups()));
  if (server.https) {
    io.err(
      `https for ${config.domains.join(", ")}: certificate valid until ${new Date(server.https.expires()).toISOString()}, renewed by itself ` +
        `with a third of its life left; port ${server.https.httpPort} answers ACME challenges and redirects the rest to https\n`,
    );
  }
  if (config.webhooksAllowPrivate) io.err("webhooks may reach private and loopback addresses (--webhooks-allow-private)\n");
  // Asked on the server's own connection: a second open of the file would run the migration check again.
  const facts = await server.services.settings.startFacts();
  // A database with no dashboard user gets a one-time link that makes the first one (a new link at each start).
  if (!facts.dashboardUser) {
    const token = await server.services.users.createLink("setup", null, SETUP_LINK_MS);
    io.err(
      `No dashboard user yet. Open this link within an hour to create the first one (it works once):\n  ${config.baseUrl}/dashboard/setup?token=${token}\n`,
    );
  }
  // --max-body bounds the whole post, files included: below --max-file-size, it is the real limit of a file.
  if (config.maxBody < config.maxFileSize && facts.formsTakingFiles > 0) {
    io.err(
      `forms that take files accept posts of at most ${config.maxBody} bytes, files included (--max-body); ` +
        `to take files up to ${config.maxFileSize} bytes (--max-file-size), raise --max-body\n`,
    );
  }
  if (facts.apiKeys === 0) {
    io.err(`No API keys yet. Make the first one with:\n  ${selfCommand()} keys create --db ${config.db} --name admin\n`);
  }
  await new Promise<void>((resolve, reject) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGINT", stop).off("SIGTERM", stop);
      io.err(`formsvc: ${signal}: no new connections; finishing the requests under way\n`);
      server.stop().then(() => {
        io.err("formsvc: stopped\n");
        resolve();
      }, reject);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

/** The help line of a setting: what it does, its environment variable and its default. */
function helpLine(declared: (typeof SETTINGS)[keyof typeof SETTINGS]): string {
  const shown = declared.shown ?? (declared.flag.includes("<") ? declared.default : undefined);
  return `${declared.help} (${declared.env}${shown ? `, default ${shown}` : ""})`;
}

/** serve's options, one for each setting of src/config.ts; test-only ones are taken but not shown in --help. */
function settingOptions(): [key: keyof typeof SETTINGS, option: Option][] {
  return (Object.entries(SETTINGS) as [keyof typeof SETTINGS, (typeof SETTINGS)[keyof typeof SETTINGS]][])
    .filter(([, declared]) => !("global" in declared))
    .map(([key, declared]) => {
      const option = new Option(declared.flag, helpLine(declared)).hideHelp("testOnly" in declared);
      if ("repeatable" in declared) option.argParser((value: string, previous: string[] = []) => [...previous, value]);
      return [key, option];
    });
}

export function serveCommand(program: Command, io: Io): void {
  const serve = program.command("serve").description("run the HTTP server: the public form endpoint, the management API and the dashboard");
  const options = settingOptions();
  for (const [, option] of options) serve.addOption(option);
  serve
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc serve --port 8080 --db /var/lib/formsvc/formsvc.db --base-url https://forms.example.com\n" +
        "  # the SMTP password in the environment, not on the command line where ps shows it:\n" +
        "  FORMSVC_SMTP_URL='smtps://forms%40example.com:PASSWORD@mail.example.com' formsvc serve --mail-from 'Forms <forms@example.com>'\n",
    )
    .action(async (_options, command: Command) => {
      const all = command.optsWithGlobals();
      const flags: ServeFlags = { db: all.db };
      for (const [key, option] of options) {
        const value = all[option.attributeName()];
        // A switch is true when given; a repeatable flag's values are joined with spaces, as in the environment.
        flags[key] = value === true ? "true" : Array.isArray(value) ? value.join(" ") : value;
      }
      await runServe(flags, io);
    });
}
