import type { Command } from "commander";
import { COMPLEXITY_RANGE, DEFAULT_COMPLEXITY, DEFAULT_FILTER_THRESHOLD } from "../src/domain/limits.ts";
import { DEFAULT_SPAM_RETENTION_DAYS, type Form } from "../src/domain/types.ts";
import { RETENTION_DAYS } from "../src/lib/validate.ts";
import { conversion } from "../src/lib/conversion.ts";
import type { DailyStats, DayCount } from "../src/services/form-stats.ts";
import { withBackend, type ConnectionOptions } from "./backend.ts";
import { CliError, EXIT, withFlagName } from "./errors.ts";
import { fieldsFromFile, spamRulesFrom, withConfirmation, withPage } from "./form-files.ts";
import type { Io } from "./io.ts";
import { parseBoolean, parseList, whenToIso } from "./options.ts";
import { printList, printObject, type Column } from "./output.ts";

// Help lines that say a limit, from the limit itself.
const DAYS = `${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}`;
const COMPLEXITY_HELP = `with --captcha altcha: the largest number a challenge asks for, ${COMPLEXITY_RANGE.min} to ${COMPLEXITY_RANGE.max} (default ${DEFAULT_COMPLEXITY})`;

/** The flag behind each field of the form body, for error messages. */
const FLAGS = {
  name: "--name",
  slug: "--slug",
  isActive: "--active",
  notificationEmail: "--email",
  redirectUrl: "--redirect",
  allowedDomains: "--domains",
  fileUploads: "--file-uploads",
  retentionDays: "--retention-days",
  spamRetentionDays: "--spam-retention-days",
  captcha: "--captcha",
  fields: "--fields-file",
  otherFields: "--other-fields",
  confirmation: "--confirmation-file",
  "captcha.complexity": "--captcha-complexity",
  spamRules: "--spam-rules-file",
  "spamFilter.enabled": "--spam-filter",
  "spamFilter.threshold": "--spam-threshold",
  page: "--page-file",
  "captcha.siteKey": "--captcha-site-key",
};

const COLUMNS = (io: Io): Column<Form>[] => [
  { header: "id", value: (f) => f.id },
  { header: "name", value: (f) => f.name },
  { header: "slug", value: (f) => f.slug },
  { header: "active", value: (f) => (f.isActive ? "yes" : "no"), style: (text, f) => (f.isActive ? text : io.chalk.yellow(text)) },
  { header: "submissions", value: (f) => f.submissionCount },
  { header: "created", value: (f) => f.createdAt },
];

export interface FormFlags {
  name?: string;
  active?: string;
  slug?: string;
  email?: string;
  redirect?: string;
  domains?: string;
  fileUploads?: string;
  retentionDays?: string;
  spamRetentionDays?: string;
  captcha?: string;
  captchaSecret?: string;
  captchaSecretStdin?: boolean;
  fieldsFile?: string;
  otherFields?: string;
  confirmationFile?: string;
  captchaComplexity?: string;
  spamRulesFile?: string;
  spamFilter?: string;
  spamThreshold?: string;
  pageFile?: string;
  captchaSiteKey?: string;
}

/** A number of days, or null for "keep for ever" ('' or never); anything else goes to the API as given, to be refused there. */
function days(value: string): number | string | null {
  const text = value.trim().toLowerCase();
  if (text === "" || text === "never" || text === "forever") return null;
  return /^\d+$/.test(text) ? Number(text) : value;
}

/**
 * The captcha part of the body: `--captcha PROVIDER` with the secret from --captcha-secret or, kept out of the
 * shell's history and `ps`, from one line of stdin (--captcha-secret-stdin); `--captcha none` removes it.
 */
async function withCaptcha(body: Record<string, unknown>, flags: FormFlags, io: Io): Promise<Record<string, unknown>> {
  const secretGiven = flags.captchaSecret !== undefined || flags.captchaSecretStdin;
  if (flags.captcha === undefined) {
    if (secretGiven) throw new CliError("--captcha-secret goes with --captcha PROVIDER (recaptcha, hcaptcha or turnstile)", EXIT.usage);
    return body;
  }
  if (flags.captchaComplexity !== undefined && flags.captcha !== "altcha") throw new CliError("--captcha-complexity goes with --captcha altcha", EXIT.usage);
  if (flags.captchaSiteKey !== undefined && ["altcha", "none", ""].includes(flags.captcha)) {
    throw new CliError("--captcha-site-key goes with --captcha recaptcha, hcaptcha or turnstile", EXIT.usage);
  }
  if (flags.captcha === "altcha") {
    if (secretGiven) throw new CliError("--captcha altcha is served by formsvc itself: it takes no secret", EXIT.usage);
    const complexity =
      flags.captchaComplexity === undefined ? undefined : /^\d+$/.test(flags.captchaComplexity) ? Number(flags.captchaComplexity) : flags.captchaComplexity;
    return { ...body, captcha: { provider: "altcha", ...(complexity === undefined ? {} : { complexity }) } };
  }
  if (flags.captcha === "none" || flags.captcha === "") {
    if (secretGiven) throw new CliError("--captcha none removes the captcha: it takes no secret", EXIT.usage);
    return { ...body, captcha: null };
  }
  if (flags.captchaSecret !== undefined && flags.captchaSecretStdin)
    throw new CliError("give the secret once: --captcha-secret or --captcha-secret-stdin", EXIT.usage);
  const secret = flags.captchaSecretStdin ? await io.prompt("") : flags.captchaSecret;
  if (!secret?.trim())
    throw new CliError(`--captcha ${flags.captcha} needs the provider's secret key: --captcha-secret SECRET or --captcha-secret-stdin`, EXIT.usage);
  const siteKey = flags.captchaSiteKey?.trim() ? { siteKey: flags.captchaSiteKey.trim() } : {};
  return { ...body, captcha: { provider: flags.captcha, secret: secret.trim(), ...siteKey } };
}

/** One line that says whether the form has a page, and where. */
function pageSummary(form: Form): string {
  if (!form.page.enabled) return "off";
  const language = form.page.language ? `, in ${form.page.language}` : "";
  return form.fields.length > 0 ? `on at ${form.submitUrl}${language}` : "on, but shown only once the form declares its fields";
}

/** One line that says what a form's confirmation email does, for the `key value` view. */
function confirmationSummary(form: Form): string {
  const c = form.confirmation;
  if (!c) return "";
  if (!c.enabled) return "off";
  return `to the ${c.field} field${c.doubleOptIn ? `, double opt-in (${c.optInDays} days)` : ""}`;
}

/** The API body for create or update; an empty --email, --redirect or --domains clears the setting. */
export function formBody(flags: FormFlags): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.active !== undefined) body.isActive = parseBoolean("--active", flags.active);
  if (flags.slug !== undefined) body.slug = flags.slug;
  if (flags.email !== undefined) body.notificationEmail = flags.email === "" ? null : flags.email;
  if (flags.redirect !== undefined) body.redirectUrl = flags.redirect === "" ? null : flags.redirect;
  if (flags.domains !== undefined) body.allowedDomains = parseList(flags.domains);
  if (flags.fileUploads !== undefined) body.fileUploads = parseBoolean("--file-uploads", flags.fileUploads);
  if (flags.retentionDays !== undefined) body.retentionDays = days(flags.retentionDays);
  if (flags.spamRetentionDays !== undefined) body.spamRetentionDays = days(flags.spamRetentionDays);
  if (flags.fieldsFile !== undefined) body.fields = fieldsFromFile(flags.fieldsFile);
  if (flags.otherFields !== undefined) body.otherFields = flags.otherFields;
  if (flags.spamRulesFile !== undefined) body.spamRules = spamRulesFrom(flags.spamRulesFile);
  if (flags.spamFilter !== undefined || flags.spamThreshold !== undefined) {
    const threshold =
      flags.spamThreshold === undefined ? undefined : Number.isNaN(Number(flags.spamThreshold)) ? flags.spamThreshold : Number(flags.spamThreshold);
    body.spamFilter = {
      ...(flags.spamFilter === undefined ? {} : { enabled: parseBoolean("--spam-filter", flags.spamFilter) }),
      ...(threshold === undefined ? {} : { threshold }),
    };
  }
  return body;
}

const rethrowWithFlag = (error: unknown) => {
  throw withFlagName(error, FLAGS);
};

/** Shows one form: `key value` lines (the captcha as its provider's name, the spam settings in short), or the API's object with --json. */
function printForm(io: Io, form: Form, json: boolean | undefined): void {
  if (json) {
    printObject(io, { ...form }, { json });
    return;
  }
  const captcha = !form.captcha ? "" : "complexity" in form.captcha ? `altcha, complexity ${form.captcha.complexity}` : form.captcha.provider;
  const spamFilter = `${form.spamFilter.enabled ? "on" : "off"}, threshold ${form.spamFilter.threshold}`;
  const fields = form.fields.map((field) => field.name).join(", ");
  printObject(
    io,
    {
      ...form,
      captcha,
      fields,
      spamRules: form.spamRules ? JSON.stringify(form.spamRules) : "",
      spamFilter,
      confirmation: confirmationSummary(form),
      page: pageSummary(form),
      payment: paymentSummary(form),
    },
    { json },
  );
}

/** A form's payment in short: "1500 eur", or "2500, 5000 eur by tier" (minor units, as set); "" when it takes none. */
function paymentSummary(form: Form): string {
  const payment = form.payment;
  if (!payment) return "";
  return payment.amount !== undefined
    ? `${payment.amount} ${payment.currency}`
    : `${payment.amounts?.join(", ")} ${payment.currency} by ${payment.amountField}`;
}

export async function runFormsCreate(flags: FormFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const body = await withPage(await withConfirmation(await withCaptcha(formBody(flags), flags, io), flags, io), flags, io);
  const form = await withBackend(globals, io.env, (backend) => backend.call<Form>("createForm", { body }), { create: true }).catch(rethrowWithFlag);
  io.err(`Made form ${form.name} (${form.id}). It takes submissions at ${form.submitUrl}\n`);
  printForm(io, form, globals.json);
}

export async function runFormsUpdate(ref: string, flags: FormFlags, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const body = await withPage(await withConfirmation(await withCaptcha(formBody(flags), flags, io), flags, io), flags, io);
  if (Object.keys(body).length === 0) {
    throw new CliError(
      "nothing to update: give at least one of --name, --active, --slug, --email, --redirect, --domains, --file-uploads, --retention-days, --spam-retention-days, --captcha, --fields-file, --other-fields, --spam-rules-file, --spam-filter, --spam-threshold, --confirmation-file, --page-file",
      EXIT.usage,
    );
  }
  const form = await withBackend(globals, io.env, (backend) => backend.call<Form>("updateForm", { params: { id: ref }, body })).catch(rethrowWithFlag);
  printForm(io, form, globals.json);
}

/** Deletes a form and its submissions: on a terminal after the user types the slug, else only with --yes. */
export async function runFormsDelete(ref: string, flags: { yes?: boolean }, globals: ConnectionOptions, io: Io): Promise<void> {
  await withBackend(globals, io.env, async (backend) => {
    const form = await backend.call<Form>("getForm", { params: { id: ref } });
    if (!flags.yes) {
      if (!io.inIsTTY) throw new CliError(`refusing to delete form ${form.slug} without --yes: stdin is not a terminal to confirm on`, EXIT.usage);
      const answer = await io.prompt(
        `Delete form "${form.name}" (${form.id}) and its ${form.submissionCount} submissions? This cannot be undone.\nType the slug ${form.slug} to confirm: `,
      );
      if (answer?.trim() !== form.slug) throw new CliError(`form ${form.slug} not deleted: the answer was not its slug`);
    }
    await backend.call("deleteForm", { params: { id: form.id } });
    io.err(`Deleted form ${form.name} (${form.id}) and its ${form.submissionCount} submissions.\n`);
  });
}

/**
 * A form's submissions, spam, page views and conversion per day: a table (or rows when piped), then the
 * conversion over the whole range (on stderr); or with --json the API's object.
 */
export async function runFormsStats(ref: string, flags: { since?: string; until?: string }, globals: ConnectionOptions & { json?: boolean }, io: Io) {
  const query = {
    since: flags.since === undefined ? undefined : whenToIso("--since", flags.since),
    until: flags.until === undefined ? undefined : whenToIso("--until", flags.until),
  };
  const stats = await withBackend(globals, io.env, (backend) => backend.call<DailyStats>("dailyStats", { params: { id: ref }, query })).catch(
    (error: unknown) => {
      throw withFlagName(error, { since: "--since", until: "--until" });
    },
  );
  if (globals.json) return void io.out(`${JSON.stringify(stats, null, 2)}\n`);
  const columns: Column<DayCount>[] = [
    { header: "date", value: (d) => d.date },
    { header: "submissions", value: (d) => d.submissions },
    { header: "spam", value: (d) => d.spam },
    { header: "views", value: (d) => d.views },
    { header: "conversion", value: (d) => percent(conversion([d])) },
  ];
  printList(io, stats.days, columns);
  const views = stats.days.reduce((sum, day) => sum + day.views, 0);
  const kept = stats.days.reduce((sum, day) => sum + day.submissions, 0);
  io.err(`Conversion ${stats.since} to ${stats.until}: ${percent(conversion(stats.days))} (${kept} submissions, ${views} views of the form's page)\n`);
}

/** Lists forms, newest first: a table on a terminal, tab-separated piped, or --json. */
export async function runFormsList(globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  const list = await withBackend(globals, io.env, (backend) => backend.call<{ forms: Form[] }>("listForms"));
  printList(io, list.forms, COLUMNS(io), { json: globals.json, empty: "No forms yet. Make one with: formsvc forms create --name Contact" });
}

/** Shows one form, by id or slug. */
export async function runFormsGet(ref: string, globals: ConnectionOptions & { json?: boolean }, io: Io): Promise<void> {
  printForm(io, await withBackend(globals, io.env, (backend) => backend.call<Form>("getForm", { params: { id: ref } })), globals.json);
}

/** A conversion as a person reads it: "12.5%", or "—" without views. */
const percent = (value: number | null) => (value === null ? "—" : `${value}%`);

/** The settings `forms create` and `forms update` take alike: spam rules, the filter, the page, the captcha's site key. */
function sharedSettingOptions(command: Command): Command {
  return command
    .option("--spam-rules-file <file>", "spam rules as JSON: {blockedWords, blockedEmails, blockDisposableEmails, maxLinks, duplicateWindowHours}; '' to clear")
    .option("--spam-filter <bool>", "true to let the account's learning filter judge posts (default), false to turn it off")
    .option("--spam-threshold <score>", `the filter's score, 0 to 1, over which a post is spam (default ${DEFAULT_FILTER_THRESHOLD})`)
    .option(
      "--page-file <path>",
      "JSON of the form's own page: {enabled, title, description, logoUrl, accentColor, submitLabel, thankYouMessage, language}; - reads stdin",
    )
    .option(
      "--captcha-site-key <key>",
      "with --captcha recaptcha, hcaptcha or turnstile: the provider's public site key, which the form's page shows its widget with",
    );
}

export function formsCommand(program: Command, io: Io): void {
  const forms = program
    .command("forms")
    .description("make, list, change and delete forms")
    .addHelpText("after", "\nExamples:\n  formsvc forms create --name Contact --email you@example.com\n  formsvc forms list\n");

  sharedSettingOptions(
    forms
      .command("create")
      .description("make a form; it takes submissions at once, at its submitUrl")
      .requiredOption("--name <name>", "the form's name, 1 to 200 characters")
      .option("--email <address>", "where to send a notification of each submission")
      .option("--redirect <url>", "where to send the browser after a submission (default: a thank-you page)")
      .option("--domains <list>", "comma-separated host names allowed to post (example.com,*.example.com)")
      .option("--slug <slug>", "the public slug (default: 12 random letters and digits)")
      .option("--file-uploads <bool>", "true to accept files in multipart posts (default false)")
      .option("--retention-days <days>", `delete submissions older than this, ${DAYS} (default: keep for ever)`)
      .option("--spam-retention-days <days>", `delete spam older than this, ${DAYS}, or '' to keep it for ever (default ${DEFAULT_SPAM_RETENTION_DAYS})`)
      .option("--captcha <provider>", "check a captcha before storing: recaptcha, hcaptcha, turnstile, or altcha (served by formsvc, no secret)")
      .option("--captcha-secret <secret>", "the captcha provider's secret key (write-only: never shown again)")
      .option("--captcha-secret-stdin", "read the captcha secret key from one line of stdin (kept out of shell history)")
      .option("--confirmation-file <path>", "JSON of the confirmation email to the person who submitted (docs/api.md); - reads stdin")
      .option("--captcha-complexity <n>", COMPLEXITY_HELP),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc forms create --name Contact --email you@example.com --domains example.com,www.example.com\n  formsvc forms create --name Newsletter --slug newsletter --json | jq -r .submitUrl\n  formsvc forms create --name Staging --test\n" +
        "  printf '%s\\n' \"$TURNSTILE_SECRET\" | formsvc forms create --name Signup --captcha turnstile --captcha-secret-stdin\n",
    )
    .action((flags: FormFlags, command: Command) => runFormsCreate(flags, command.optsWithGlobals(), io));

  forms
    .command("list")
    .description("list forms, newest first")
    .addHelpText("after", "\nExamples:\n  formsvc forms list\n  formsvc forms list --json | jq -r '.[] | [.slug, .submissionCount] | @tsv'\n")
    .action((_flags, command: Command) => runFormsList(command.optsWithGlobals(), io));

  forms
    .command("get <form>")
    .description("show a form (by id or slug)")
    .addHelpText("after", "\nExamples:\n  formsvc forms get contact\n  formsvc forms get frm_01jd3k4m5n6p7q8r9s0t1v2w3x --json\n")
    .action((ref: string, _flags, command: Command) => runFormsGet(ref, command.optsWithGlobals(), io));

  sharedSettingOptions(
    forms
      .command("update <form>")
      .description("change a form's settings; an empty --email, --redirect or --domains clears it")
      .option("--name <name>", "a new name")
      .option("--active <bool>", "true to take submissions, false to refuse them")
      .option("--slug <slug>", "a new public slug (the old address stops working)")
      .option("--email <address>", "notification address ('' for none)")
      .option("--redirect <url>", "redirect after a submission ('' for the thank-you page)")
      .option("--domains <list>", "comma-separated host names allowed to post ('' for any)")
      .option("--file-uploads <bool>", "true to accept files in multipart posts, false to refuse them")
      .option("--retention-days <days>", `delete submissions older than this, ${DAYS} ('' to keep for ever)`)
      .option("--spam-retention-days <days>", `delete spam older than this, ${DAYS} ('' to keep it for ever)`)
      .option("--fields-file <path>", "a JSON file with the array of fields the form declares ([] for none; see docs/api.md)")
      .option("--other-fields <what>", "what posted fields the form does not declare become: keep, drop or refuse")
      .option("--captcha <provider>", "check a captcha before storing: recaptcha, hcaptcha, turnstile or altcha; none to remove it")
      .option("--captcha-secret <secret>", "the captcha provider's secret key (write-only: never shown again)")
      .option("--captcha-secret-stdin", "read the captcha secret key from one line of stdin (kept out of shell history)")
      .option("--confirmation-file <path>", "JSON of the confirmation email to the person who submitted (null removes it); - reads stdin")
      .option("--captcha-complexity <n>", COMPLEXITY_HELP),
  )
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc forms update contact --active false\n  formsvc forms update jobs --file-uploads true --retention-days 180\n  formsvc forms update contact --page-file page.json\n  formsvc forms update contact --email '' --domains example.com\n  formsvc forms update newsletter --confirmation-file confirmation.json\n  formsvc forms update contact --captcha hcaptcha --captcha-secret-stdin < hcaptcha-secret.txt\n  formsvc forms update contact --captcha none\n",
    )
    .action((ref: string, flags: FormFlags, command: Command) => runFormsUpdate(ref, flags, command.optsWithGlobals(), io));

  forms
    .command("stats <form>")
    .description("a form's submissions, spam, page views and conversion per day (UTC), from the day's counters")
    .option("--since <when>", "the first day: ISO 8601 (2026-11-01) or a span back (7d); default: 29 days before --until")
    .option("--until <when>", "the last day, included: ISO 8601 or a span back; default: today")
    .addHelpText(
      "after",
      "\nExamples:\n  formsvc forms stats contact\n  formsvc forms stats contact --since 7d\n  formsvc forms stats contact --since 2026-11-01 --until 2026-11-30 --json\n",
    )
    .action((ref: string, flags: { since?: string; until?: string }, command: Command) => runFormsStats(ref, flags, command.optsWithGlobals(), io));

  forms
    .command("delete <form>")
    .description("delete a form and all its submissions, for good")
    .option("-y, --yes", "do not ask; needed when stdin is not a terminal")
    .addHelpText("after", "\nExamples:\n  formsvc forms delete contact\n  formsvc forms delete contact --yes\n")
    .action((ref: string, flags: { yes?: boolean }, command: Command) => runFormsDelete(ref, flags, command.optsWithGlobals(), io));
}
