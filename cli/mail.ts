import type { Command } from "commander";
import type { MailTestResult } from "../src/services/outbox/mail-status.ts";
import { openBackend, remoteUrl, type ConnectionOptions } from "./backend.ts";
import { CliError, EXIT, ExitStatus, withFlagName } from "./errors.ts";
import type { Io } from "./io.ts";

/** The mail settings these commands take, as serve takes them (docs/cli.md, "formsvc mail"). */
export interface MailFlags {
  mailUrl?: string;
  smtpUrl?: string;
  mailFrom?: string;
}

/** serve's mail settings from the flags, then the environment; a bad one is a usage error naming it. */
async function mailSettings(flags: MailFlags, env: Record<string, string | undefined>) {
  const [{ loadServeConfig }, { ApiError }] = await Promise.all([import("../src/config.ts"), import("../src/errors.ts")]);
  try {
    const config = loadServeConfig({ mailUrl: flags.mailUrl, smtpUrl: flags.smtpUrl, mailFrom: flags.mailFrom }, env);
    return { mailUrl: config.mailUrl, mailFrom: config.mailFrom, timeoutMs: config.mailTimeoutMs };
  } catch (error) {
    if (error instanceof ApiError) throw new CliError(`--${error.field ?? "mail-url"}: ${error.message}`, EXIT.usage);
    throw error;
  }
}

/** Sends a test through the transport (the server's, in remote mode) and prints what the provider said; exit 1 when it was not sent. */
export async function runMailTest(flags: MailFlags & { to: string }, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  let result: MailTestResult;
  if (remoteUrl(globals, io.env)) {
    const backend = await openBackend(globals, io.env);
    try {
      result = await backend.call<MailTestResult>("testMail", { body: { to: flags.to } }).catch((error) => Promise.reject(withFlagName(error, { to: "--to" })));
    } finally {
      await backend.close();
    }
  } else {
    const settings = await mailSettings(flags, io.env);
    const [{ transportMailer }, { sendMailTest }] = await Promise.all([import("../src/mailer.ts"), import("../src/services/outbox/mail-status.ts")]);
    const mailer = settings.mailUrl ? transportMailer(settings.mailUrl, settings.mailFrom, settings.timeoutMs) : null;
    if (!mailer) throw new CliError("mail is off: give --mail-url (or FORMSVC_MAIL_URL); see docs/deploy.md", EXIT.usage);
    result = await sendMailTest(mailer, { to: flags.to }).catch((error) => Promise.reject(withFlagName(error, { to: "--to" })));
  }
  if (globals.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
  else io.out(`${result.answer}\n`);
  io.err(
    result.sent
      ? `Sent a test to ${flags.to} through ${result.transport}.\n`
      : `Not sent through ${result.transport}${result.retryable ? " (it may pass later)" : ""}.\n`,
  );
  if (!result.sent) throw new ExitStatus(EXIT.error);
}

/** Checks the From domain's SPF, DMARC and MX, and for SMTP the port; one line per check, exit 1 when one fails. */
export async function runMailDoctor(flags: MailFlags & { from?: string; dnsServer?: string; format?: string }, io: Io): Promise<void> {
  if (flags.format !== undefined && flags.format !== "json" && flags.format !== "text")
    throw new CliError(`--format must be text or json, not "${flags.format}"`, EXIT.usage);
  const [{ chooseTransport }, { dnsServerOf, mailDoctor }, { parseMailbox }] = await Promise.all([
    import("../src/lib/mail-transports/index.ts"),
    import("../src/lib/mail-transports/doctor.ts"),
    import("../src/lib/mail.ts"),
  ]);
  const dnsServer = flags.dnsServer === undefined ? null : dnsServerOf(flags.dnsServer);
  if (flags.dnsServer !== undefined && !dnsServer)
    throw new CliError(`--dns-server must be IP or IP:PORT such as 1.1.1.1 or 127.0.0.1:5353, not "${flags.dnsServer}"`, EXIT.usage);
  const settings = await mailSettings(flags, io.env);
  const from = flags.from === undefined ? settings.mailFrom.address : parseMailbox(flags.from)?.address;
  if (!from) throw new CliError(`--from must be an address such as forms@example.com, not "${flags.from}"`, EXIT.usage);
  const checks = await mailDoctor({ from, chosen: settings.mailUrl ? chooseTransport(settings.mailUrl) : null, dnsServer });
  if (flags.format === "json") io.out(`${JSON.stringify({ checks }, null, 2)}\n`);
  else for (const check of checks) io.out(`${check.status.padEnd(4)}  ${check.name}: ${check.detail}\n`);
  if (checks.some((check) => check.status === "fail")) throw new ExitStatus(EXIT.error);
}

const withMailSettings = (command: Command) =>
  command
    .option("--mail-url <url>", "the mail transport, as serve's --mail-url (default: FORMSVC_MAIL_URL)")
    .option("--smtp-url <url>", "the old name of --mail-url for smtp:// and smtps:// (default: FORMSVC_SMTP_URL)")
    .option("--mail-from <address>", "the From, as serve's --mail-from (default: FORMSVC_MAIL_FROM)");

export function mailCommand(program: Command, io: Io): void {
  const mail = program
    .command("mail")
    .description("try the mail transport: send a test, check the sender's domain")
    .addHelpText("after", "\nExamples:\n  formsvc mail test --to you@example.com\n  formsvc mail doctor --from forms@example.com\n");
  withMailSettings(
    mail
      .command("test")
      .description("send a test email through the transport and print the provider's answer (remote mode: the server's, with an admin key)")
      .requiredOption("--to <address>", "where the test goes"),
  ).action(async (flags: MailFlags & { to: string }, command: Command) => runMailTest(flags, command.optsWithGlobals(), io));
  withMailSettings(
    mail
      .command("doctor")
      .description("check the From domain's SPF, DMARC and MX, and whether the SMTP port can be reached from here")
      .option("--from <address>", "the From to check (default: --mail-from's)")
      .option("--dns-server <ip[:port]>", "ask this DNS server instead of the system's resolver")
      .option("--format <format>", "text or json"),
  ).action(async (flags: MailFlags & { from?: string; dnsServer?: string; format?: string }) => runMailDoctor(flags, io));
}
