import type { Command } from "commander";
import { existsSync, mkdirSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import type { BackupStatus } from "../src/backups.ts";
import type { ServeConfig, ServeFlags } from "../src/config.ts";
import { isLibsqlUrl } from "../src/db/location.ts";
import { CliError } from "./errors.ts";
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

/** The backup schedule as the start lines show it: where, how often, how many, and the last good copy. */
function backupLine(status: BackupStatus): string {
  const every = status.everyMs % 3_600_000 === 0 ? `${status.everyMs / 3_600_000}h` : `${status.everyMs / 1000}s`;
  const where = status.s3 ? `${status.dir} and ${status.s3}` : status.dir;
  const last = status.lastSuccessAt === null ? "none yet" : `${new Date(status.lastSuccessAt).toISOString()} (${status.lastFile})`;
  return `backups every ${every} to ${where}, the last ${status.keep} kept; last backup: ${last}\n`;
}

const LOOPBACK = new Set(["127.0.0.1", "::1", "localhost"]);

/** How links learn the public address when --base-url is not set: from a trusted proxy, or a warning. */
function publicAddressNote(config: ServeConfig): string {
  if (!config.derived.baseUrl) return "";
  if (config.trustProxy) {
    return (
      "public address: each request's X-Forwarded-Proto and X-Forwarded-Host (or Forwarded) from the proxy, as --base-url is not set; " +
      "links made outside a request (the setup link below, webhook payloads) use " +
      `${config.baseUrl}\n`
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
  const [{ loadServeConfig, redactedSmtpUrl }, { startServer }, { SETUP_LINK_MS }] = await Promise.all([
    import("../src/config.ts"),
    import("../src/server.ts"),
    import("../src/services/users.ts"),
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
  io.err(publicAddressNote(config));
  if (server.metricsUrl) io.err(`metrics at ${server.metricsUrl}\n`);
  else if (config.metrics) io.err(`metrics at ${server.url}/metrics\n`);
  io.err(`forms take submissions at ${config.submitUrl}/f/{slug}\n`);
  io.err(mailStatus(config, redactedSmtpUrl));
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

export function serveCommand(program: Command, io: Io): void {
  program
    .command("serve")
    .description("run the HTTP server: the public form endpoint, the management API and the dashboard")
    .option("--host <host>", "address to listen on (FORMSVC_HOST, default 0.0.0.0)")
    .option("--port <port>", "port to listen on (FORMSVC_PORT, default 8080)")
    .option("--base-url <url>", "public address of this server, used in links (FORMSVC_BASE_URL)")
    .option("--submit-url <url>", "public address of the submission host, if separate (FORMSVC_SUBMIT_URL)")
    .option("--max-body <bytes>", "largest accepted body in bytes (FORMSVC_MAX_BODY, default 1048576)")
    .option("--max-file-size <bytes>", "largest file a post may carry, in bytes, on forms that take files (FORMSVC_MAX_FILE_SIZE, default 10485760)")
    .option("--rate-limit <perMinute>", "submissions a minute per address per form, 0 for none (FORMSVC_RATE_LIMIT, default 30)")
    .option("--rate-burst <n>", "submissions allowed at once before the rate applies (FORMSVC_RATE_BURST, default 10)")
    .option(
      "--trust-proxy",
      "behind a reverse proxy: take the client address from X-Forwarded-For, and without --base-url the public address from X-Forwarded-Proto and X-Forwarded-Host (or Forwarded)",
    )
    .option("--smtp-url <url>", "SMTP server for notification emails, smtp://user:pass@host:587 or smtps://... (FORMSVC_SMTP_URL; without it mail is off)")
    .option("--metrics", "serve Prometheus metrics at /metrics on the main port (FORMSVC_METRICS)")
    .option("--metrics-listen <host:port>", "serve /metrics on this address only, such as 127.0.0.1:9090 (FORMSVC_METRICS_LISTEN)")
    .option("--log-format <format>", "text or json, one line per request (FORMSVC_LOG_FORMAT, default text)")
    .option(
      "--mail-from <address>",
      'From of notification emails, "Forms <forms@example.com>" (FORMSVC_MAIL_FROM, default: formsvc <the SMTP login if an address, else formsvc@localhost>)',
    )
    .option(
      "--webhooks-allow-private",
      "let webhooks reach loopback, private and link-local addresses (FORMSVC_WEBHOOKS_ALLOW_PRIVATE; for a receiver on this machine or an intranet)",
    )
    .option(
      "--webhook-retry-scale <factor>",
      "multiply every webhook retry delay (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) by this (FORMSVC_WEBHOOK_RETRY_SCALE, default 1)",
    )
    .option(
      "--webhook-rotation-overlap <duration>",
      "after a webhook secret is rotated, sign events with the old secret too for this long, e.g. 24h, 2s, 0s (FORMSVC_WEBHOOK_ROTATION_OVERLAP, default 24h)",
    )
    .option(
      "--domain <name>",
      "serve HTTPS for this domain on 443 with a certificate got and renewed by ACME, and http on 80 redirecting (repeatable; FORMSVC_DOMAINS)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option("--acme-email <address>", "the ACME account's contact, told of expiry problems (FORMSVC_ACME_EMAIL)")
    .option(
      "--acme-directory <url>",
      "the ACME server (FORMSVC_ACME_DIRECTORY, default Let's Encrypt; staging: https://acme-staging-v02.api.letsencrypt.org/directory)",
    )
    .option("--https-port <port>", "the https port with --domain (FORMSVC_HTTPS_PORT, default 443)")
    .option("--http-port <port>", "the http port with --domain, for challenges and redirects (FORMSVC_HTTP_PORT, default 80)")
    .option("--backup-dir <dir>", "make a checked copy of the database in this folder on a schedule (FORMSVC_BACKUP_DIR)")
    .option("--backup-every <duration>", "time between scheduled backups, e.g. 24h, 6h, 30m (FORMSVC_BACKUP_EVERY, default 24h)")
    .option("--backup-keep <n>", "scheduled copies kept, in the folder and in the bucket (FORMSVC_BACKUP_KEEP, default 7)")
    .option(
      "--backup-s3 <s3://bucket/prefix>",
      "send each scheduled copy to this bucket too; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION (FORMSVC_BACKUP_S3)",
    )
    .option("--backup-s3-endpoint <url>", "the address of an S3-compatible service: MinIO, R2, B2 (FORMSVC_BACKUP_S3_ENDPOINT)")
    .option(
      "--captcha-verify-url <provider=url>",
      "send a captcha provider's verifications to another address, e.g. turnstile=http://127.0.0.1:9000/verify (repeatable; FORMSVC_CAPTCHA_VERIFY_URLS, space-separated)",
      (value: string, previous: string[] = []) => [...previous, value],
    )
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
          maxFileSize: all.maxFileSize,
          rateLimit: all.rateLimit,
          rateBurst: all.rateBurst,
          trustProxy: all.trustProxy ? "true" : undefined,
          smtpUrl: all.smtpUrl,
          mailFrom: all.mailFrom,
          metrics: all.metrics ? "true" : undefined,
          metricsListen: all.metricsListen,
          logFormat: all.logFormat,
          webhooksAllowPrivate: all.webhooksAllowPrivate ? "true" : undefined,
          webhookRetryScale: all.webhookRetryScale,
          webhookRotationOverlapMs: all.webhookRotationOverlap,
          domains: (all.domain as string[] | undefined)?.join(" "),
          acmeEmail: all.acmeEmail,
          acmeDirectory: all.acmeDirectory,
          httpsPort: all.httpsPort,
          httpPort: all.httpPort,
          backupDir: all.backupDir,
          backupEveryMs: all.backupEvery,
          backupKeep: all.backupKeep,
          backupS3: all.backupS3,
          backupS3Endpoint: all.backupS3Endpoint,
          captchaVerifyUrls: (all.captchaVerifyUrl as string[] | undefined)?.join(" "),
        },
        io,
      );
    });
}
