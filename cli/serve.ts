import type { Command } from "commander";
import { relative } from "node:path";
import type { ServeConfig, ServeFlags } from "../src/config.ts";
import type { Io } from "./io.ts";

/** How the person who started the server runs formsvc: `npx bun cli/formsvc.ts` in a source checkout, else `formsvc`. */
function selfCommand(): string {
  const entry = relative(process.cwd(), Bun.main);
  return entry.endsWith(".ts") && !entry.startsWith("..") ? `npx bun ${entry}` : "formsvc";
}

export interface ServeOptions extends ServeFlags {}

/** Where notifications go, or that mail is off and how to turn it on; the SMTP password is never shown. */
function mailStatus(config: ServeConfig, redactedSmtpUrl: (url: string) => string): string {
  const from = config.mailFrom.name ? `${config.mailFrom.name} <${config.mailFrom.address}>` : config.mailFrom.address;
  if (config.smtpUrl) return `notification emails go out through ${redactedSmtpUrl(config.smtpUrl)}, from ${from}\n`;
  return (
    "mail is off: notifications of live forms are kept pending, not sent. Turn it on with\n" +
    "  --smtp-url smtp://user:pass@mail.example.com:587 (or FORMSVC_SMTP_URL) and --mail-from (FORMSVC_MAIL_FROM)\n"
  );
}

/** Serves until SIGINT or SIGTERM; on a database with no key, says how to make the first one. */
export async function runServe(options: ServeOptions, io: Io): Promise<void> {
  // The server is loaded when serve runs, not by every command of the CLI.
  const [{ loadServeConfig, redactedSmtpUrl }, { startServer }, { apiKeys }, { count }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/server.ts"),
    import("../src/db/schema.ts"),
    import("drizzle-orm"),
  ]);
  const config = loadServeConfig(options, io.env);
  const server = await startServer(config);
  io.err(`formsvc listening on ${server.url} (database ${config.db})\n`);
  if (config.baseUrl !== server.url) io.err(`public address ${config.baseUrl}\n`);
  io.err(`forms take submissions at ${config.submitUrl}/f/{slug}\n`);
  io.err(mailStatus(config, redactedSmtpUrl));
  // Asked on the server's own connection: a second open of the file would run the migration check again.
  const [keys] = await server.services.store.db.select({ n: count() }).from(apiKeys);
  if ((keys?.n ?? 0) === 0) {
    io.err(`No API keys yet. Make the first one with:\n  ${selfCommand()} keys create --db ${config.db} --name admin\n`);
  }
  await new Promise<void>((resolve) => {
    const stop = () => {
      io.err("formsvc: stopping\n");
      void server.stop().then(resolve);
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}

export function serveCommand(program: Command, io: Io): void {
  program
    .command("serve")
    .description("run the HTTP server: the public form endpoint and the management API")
    .option("--host <host>", "address to listen on (FORMSVC_HOST, default 0.0.0.0)")
    .option("--port <port>", "port to listen on (FORMSVC_PORT, default 8080)")
    .option("--base-url <url>", "public address of this server, used in links (FORMSVC_BASE_URL)")
    .option("--submit-url <url>", "public address of the submission host, if separate (FORMSVC_SUBMIT_URL)")
    .option("--max-body <bytes>", "largest accepted body in bytes (FORMSVC_MAX_BODY, default 1048576)")
    .option("--rate-limit <perMinute>", "submissions a minute per address per form, 0 for none (FORMSVC_RATE_LIMIT, default 30)")
    .option("--rate-burst <n>", "submissions allowed at once before the rate applies (FORMSVC_RATE_BURST, default 10)")
    .option("--trust-proxy", "take the client address from X-Forwarded-For (behind a reverse proxy)")
    .option("--smtp-url <url>", "SMTP server for notification emails, smtp://user:pass@host:587 or smtps://... (FORMSVC_SMTP_URL; without it mail is off)")
    .option("--mail-from <address>", 'From of notification emails, "Forms <forms@example.com>" (FORMSVC_MAIL_FROM, default: formsvc <the SMTP login if an address, else formsvc@localhost>)')
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc serve --port 8080 --db /var/lib/formsvc/formsvc.db --base-url https://forms.example.com\n" +
        "  # the SMTP password in the environment, not on the command line where ps shows it:\n" +
        "  FORMSVC_SMTP_URL='smtps://forms%40example.com:PASSWORD@mail.example.com' formsvc serve --mail-from 'Forms <forms@example.com>'\n",
    )
    .action(async (_options, command: Command) => {
      const all = command.optsWithGlobals();
      await runServe(
        {
          host: all.host,
          port: all.port,
          db: all.db,
          baseUrl: all.baseUrl,
          submitUrl: all.submitUrl,
          maxBody: all.maxBody,
          rateLimit: all.rateLimit,
          rateBurst: all.rateBurst,
          trustProxy: all.trustProxy ? "true" : undefined,
          smtpUrl: all.smtpUrl,
          mailFrom: all.mailFrom,
        },
        io,
      );
    });
}
