import { ApiError } from "./errors.ts";
import { parseMailbox, type Mailbox } from "./lib/mail.ts";
import { isEmail } from "./lib/validate.ts";
import { CAPTCHA_VERIFY_URLS } from "./services/captcha.ts";
import { CAPTCHA_PROVIDERS, type CaptchaProvider } from "./domain/types.ts";

// Every setting of `formsvc serve` is declared once, in SETTINGS below: its flag, environment variable,
// default, parser and help line. serve's options (cli/serve.ts), the ServeConfig type and object, and the
// README's table of settings (scripts/settings-table.ts, checked by test/unit/settings.test.ts) all come
// from it. A new setting is one entry here; a setting that only tests need is marked `testOnly`: it works
// from the environment (and its flag, if any, is still taken) but is not offered in --help or the README.

/** One setting: how it is given, what it is when not given, and how its text becomes a value. */
interface Setting<T> {
  /** The flag as commander declares it (`--port <port>`); one without `<value>` is a switch. */
  flag: string;
  env: string;
  /** The text used when neither flag nor environment gives one, parsed like any other. */
  default?: string;
  /** The default as help and the README say it, when that is not the `default` text itself. */
  shown?: string;
  /** The help line of `formsvc serve --help` and the README's table. */
  help: string;
  /** Turns the given text (undefined when none was given and there is no default) into the value; `name` is the flag's name, for errors. */
  parse: (value: string | undefined, name: string, earlier: Readonly<Record<string, unknown>>) => T;
  /** Only tests need it: not in --help, not in the README's table (docs/cli.md lists these). */
  testOnly?: true;
  /** The flag may be given more than once; the values are joined with spaces, as in the environment. */
  repeatable?: true;
  /** The flag is the program's own (every command takes it), so serve does not declare it again. */
  global?: true;
}

/** A setting, with its value's type taken from its parser. */
const setting = <T>(declared: Setting<T>): Setting<T> => declared;
const text = (value: string | undefined) => value as string;
const whole = (min: number, max: number) => (value: string | undefined, name: string) => integer(name, value as string, min, max);
const onOff = (value: string | undefined, name: string) => boolean(name, value as string);

/** Every setting of `formsvc serve`, in the order they are read (later ones may use earlier values). */
export const SETTINGS = {
  host: setting({ flag: "--host <host>", env: "FORMSVC_HOST", default: "0.0.0.0", help: "address to listen on", parse: text }),
  port: setting({ flag: "--port <port>", env: "FORMSVC_PORT", default: "8080", help: "port to listen on", parse: whole(0, 65535) }),
  db: setting({
    flag: "--db <path>",
    env: "FORMSVC_DB",
    default: "./formsvc.db",
    help: "SQLite file (made and migrated at start), or a libSQL server's `libsql://…` URL, its token in `FORMSVC_DB_AUTH_TOKEN` (see [docs/scaling.md](docs/scaling.md))",
    parse: text,
    global: true,
  }),
  baseUrl: setting({
    flag: "--base-url <url>",
    env: "FORMSVC_BASE_URL",
    shown: "http://localhost:PORT",
    help: "public address of this server, used in links and Location",
    parse: (value, name, earlier) => url(name, value ?? derivedBaseUrl(earlier.host as string, earlier.port as number)),
  }),
  submitUrl: setting({
    flag: "--submit-url <url>",
    env: "FORMSVC_SUBMIT_URL",
    shown: "the base URL",
    help: "public address of the submission host, if separate",
    parse: (value, name, earlier) => url(name, value ?? (earlier.baseUrl as string)),
  }),
  maxBody: setting({
    flag: "--max-body <bytes>",
    env: "FORMSVC_MAX_BODY",
    default: "1048576",
    help: "largest accepted body in bytes",
    parse: whole(1, 1024 ** 3),
  }),
  maxFileSize: setting({
    flag: "--max-file-size <bytes>",
    env: "FORMSVC_MAX_FILE_SIZE",
    default: "10485760",
    help: "largest file a post may carry, in bytes, on forms that take files (the whole post is still held to --max-body)",
    parse: whole(1, 1024 ** 3),
  }),
  rateLimit: setting({
    flag: "--rate-limit <perMinute>",
    env: "FORMSVC_RATE_LIMIT",
    default: "30",
    help: "submissions a minute per client address per form, 0 for none",
    parse: whole(0, 1_000_000),
  }),
  rateBurst: setting({
    flag: "--rate-burst <n>",
    env: "FORMSVC_RATE_BURST",
    default: "10",
    help: "submissions allowed at once before the rate applies",
    parse: whole(1, 1_000_000),
  }),
  trustProxy: setting({
    flag: "--trust-proxy",
    env: "FORMSVC_TRUST_PROXY",
    default: "false",
    help: "take the client address from X-Forwarded-For (behind a reverse proxy such as nginx or Caddy)",
    parse: onOff,
  }),
  smtpUrl: setting({
    flag: "--smtp-url <url>",
    env: "FORMSVC_SMTP_URL",
    shown: "none: mail is off",
    help: "SMTP server for notification emails, smtp://user:pass@host:587 (STARTTLS when offered) or smtps://user:pass@host (TLS); percent-encode @ or : in the user or password",
    parse: (value) => (value === undefined ? null : smtpUrl(value)),
  }),
  mailFrom: setting({
    flag: "--mail-from <address>",
    env: "FORMSVC_MAIL_FROM",
    shown: "formsvc <the SMTP login> if it is an address, else formsvc <formsvc@localhost>",
    help: 'From of notification emails: you@example.com or "Forms <forms@example.com>"',
    parse: (value, name, earlier) => mailFrom(name, value, earlier.smtpUrl as string | null),
  }),
  metrics: setting({
    flag: "--metrics",
    env: "FORMSVC_METRICS",
    default: "false",
    help: "serve Prometheus metrics at /metrics on the main port",
    parse: onOff,
  }),
  metricsListen: setting({
    flag: "--metrics-listen <host:port>",
    env: "FORMSVC_METRICS_LISTEN",
    shown: "none",
    help: "serve /metrics on this address only, such as 127.0.0.1:9090",
    parse: (value, name) => (value === undefined ? null : listenAddress(name, value)),
  }),
  logFormat: setting({
    flag: "--log-format <format>",
    env: "FORMSVC_LOG_FORMAT",
    default: "text",
    help: "text, or json (one object a line) for log shippers",
    parse: (value) => logFormat(value as string),
  }),
  webhooksAllowPrivate: setting({
    flag: "--webhooks-allow-private",
    env: "FORMSVC_WEBHOOKS_ALLOW_PRIVATE",
    default: "false",
    help: "let webhooks reach loopback, private and link-local addresses (a receiver on this machine or an intranet)",
    parse: onOff,
  }),
  captchaVerifyUrls: setting({
    flag: "--captcha-verify-url <provider=url>",
    env: "FORMSVC_CAPTCHA_VERIFY_URLS",
    shown: "the providers' own",
    help: "PROVIDER=URL: send a captcha provider's verifications to another address (a proxy, or www.recaptcha.net where google.com is blocked); repeatable, space-separated in the environment",
    parse: (value) => captchaVerifyUrls(value),
    repeatable: true,
  }),
  webhookRetryScale: setting({
    flag: "--webhook-retry-scale <factor>",
    env: "FORMSVC_WEBHOOK_RETRY_SCALE",
    default: "1",
    help: "multiply every webhook retry delay (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) by this; tests use 0.001",
    parse: (value) => scale(value as string),
    testOnly: true,
  }),
  purgeIntervalMs: setting({
    flag: "--purge-interval-ms <ms>",
    env: "FORMSVC_PURGE_INTERVAL_MS",
    default: "3600000",
    help: "time between retention purges (an hour)",
    parse: whole(10, 24 * 3_600_000),
    testOnly: true,
  }),
  mailRetryBaseMs: setting({
    flag: "--mail-retry-base-ms <ms>",
    env: "FORMSVC_MAIL_RETRY_BASE_MS",
    default: "60000",
    help: "how long after a failed attempt a notification is tried again the first time; later delays grow from it",
    parse: whole(1, 3_600_000),
    testOnly: true,
  }),
  mailTimeoutMs: setting({
    flag: "--mail-timeout-ms <ms>",
    env: "FORMSVC_MAIL_TIMEOUT_MS",
    default: "10000",
    help: "how long the mail server may take to connect, greet or answer; a claim on a notification lasts ten of these",
    parse: whole(100, 60_000),
    testOnly: true,
  }),
  webhookTimeoutMs: setting({
    flag: "--webhook-timeout-ms <ms>",
    env: "FORMSVC_WEBHOOK_TIMEOUT_MS",
    default: "10000",
    help: "how long a webhook receiver may take to answer",
    parse: whole(100, 60_000),
    testOnly: true,
  }),
  captchaTimeoutMs: setting({
    flag: "--captcha-timeout-ms <ms>",
    env: "FORMSVC_CAPTCHA_TIMEOUT_MS",
    default: "5000",
    help: "how long a captcha provider may take before the submission is kept as unverified spam",
    parse: whole(100, 60_000),
    testOnly: true,
  }),
};

type SettingKey = keyof typeof SETTINGS;

/** Everything `formsvc serve` can be told, after flags, environment and defaults are merged and checked. */
export type ServeConfig = { [K in SettingKey]: ReturnType<(typeof SETTINGS)[K]["parse"]> } & {
  /** The token of a libSQL server (Turso), from FORMSVC_DB_AUTH_TOKEN only: never a flag, so never in `ps` or a log line. */
  dbAuthToken?: string;
  /** Which of baseUrl and submitUrl were derived from host and port (and so follow the port actually bound). */
  derived: { baseUrl: boolean; submitUrl: boolean };
};

/** What was given on the command line, by setting. */
export type ServeFlags = Partial<Record<SettingKey, string | number | boolean | undefined>>;

/** The flag's name without dashes or value (`max-body`), as errors name it. */
export const flagName = (flag: string) => flag.replace(/^--/, "").split(" ")[0] as string;

/** `provider=URL` pairs, separated by spaces (one per --captcha-verify-url), over the providers' own addresses. */
function captchaVerifyUrls(value: string | undefined): Record<CaptchaProvider, string> {
  const urls = { ...CAPTCHA_VERIFY_URLS };
  for (const pair of (value ?? "").split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    const provider = pair.slice(0, at) as CaptchaProvider;
    if (at < 0 || !CAPTCHA_PROVIDERS.includes(provider)) {
      throw new ApiError("invalid_parameter", `captcha-verify-url must be PROVIDER=URL with PROVIDER one of ${CAPTCHA_PROVIDERS.join(", ")}, not "${pair}"`, {
        field: "captcha-verify-url",
      });
    }
    urls[provider] = url("captcha-verify-url", pair.slice(at + 1));
  }
  return urls;
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ApiError("invalid_parameter", `${name} must be a whole number from ${min} to ${max}, not "${value}"`, { field: name });
  }
  return Number(value);
}

function url(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ApiError("invalid_parameter", `${name} must be an absolute http(s) URL, not "${value}"`, { field: name });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ApiError("invalid_parameter", `${name} must be an absolute http(s) URL, not "${value}"`, { field: name });
  }
  return value.replace(/\/+$/, "");
}

function scale(value: string): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(n > 0) || n > 1000) {
    throw new ApiError("invalid_parameter", `webhook-retry-scale must be a number above 0 and at most 1000, such as 0.001, not "${value}"`, {
      field: "webhook-retry-scale",
    });
  }
  return n;
}

const SMTP_EXAMPLE = "smtp://user:pass@mail.example.com:587 or smtps://user:pass@mail.example.com";

/** An smtp:// or smtps:// URL with a host; the message never repeats the value, which may hold a password. */
function smtpUrl(value: string): string {
  const parsed = /[\u0000-\u0020\u007f]/.test(value) || !URL.canParse(value) ? null : new URL(value);
  if (!parsed || (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") || parsed.hostname === "") {
    throw new ApiError("invalid_parameter", `smtp-url must be an address such as ${SMTP_EXAMPLE}`, { field: "smtp-url" });
  }
  return value;
}

/** The SMTP URL as it may be shown: the password replaced by ***. */
export function redactedSmtpUrl(value: string): string {
  const url = new URL(value);
  if (url.password) url.password = "***";
  return url.href.replace(/\/$/, "");
}

/** The From when none is set: the SMTP login when it is an email address (as most providers require), else formsvc@localhost. */
function defaultMailFrom(smtp: string | null): Mailbox {
  const user = smtp ? decodeURIComponent(new URL(smtp).username) : "";
  return { name: "formsvc", address: isEmail(user) ? user : "formsvc@localhost" };
}

/** A true/false flag or variable (also 1/0). */
function boolean(name: string, value: string): boolean {
  if (!["true", "false", "1", "0"].includes(value)) throw new ApiError("invalid_parameter", `${name} must be true or false, not "${value}"`, { field: name });
  return value === "true" || value === "1";
}

/** HOST:PORT (an IPv6 host in brackets), for a second listening address. */
function listenAddress(name: string, value: string): { host: string; port: number } {
  const found = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value);
  if (!found || Number(found[3]) > 65535) {
    throw new ApiError("invalid_parameter", `${name} must be HOST:PORT such as 127.0.0.1:9090, not "${value}"`, { field: name });
  }
  return { host: found[1] ?? found[2]!, port: Number(found[3]) };
}

/** The base URL when none is set: a wildcard address is not one a browser can open, so it becomes localhost. */
export function derivedBaseUrl(host: string, port: number): string {
  const linkHost = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${linkHost}:${port}`;
}

/** Flags win over the environment, which wins over the defaults; every value is checked once, here. */
export function loadServeConfig(flags: ServeFlags, env: Record<string, string | undefined> = process.env): ServeConfig {
  const given = (key: SettingKey): string | undefined => {
    const flag = flags[key];
    if (flag !== undefined && flag !== "") return String(flag);
    const fromEnv = env[SETTINGS[key].env];
    return fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined;
  };
  const config: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as [SettingKey, Setting<unknown>][]) {
    config[key] = declared.parse(given(key) ?? declared.default, flagName(declared.flag), config);
  }
  config.dbAuthToken = env.FORMSVC_DB_AUTH_TOKEN || undefined;
  config.derived = { baseUrl: given("baseUrl") === undefined, submitUrl: given("submitUrl") === undefined };
  return config as ServeConfig;
}

/** The From given, or when none is: the SMTP login when it is an email address, else formsvc@localhost. */
function mailFrom(name: string, value: string | undefined, smtp: string | null): Mailbox {
  if (value === undefined) return defaultMailFrom(smtp);
  const mailbox = parseMailbox(value);
  if (!mailbox) {
    throw new ApiError("invalid_parameter", `${name} must be an address such as you@example.com or "Forms <forms@example.com>", not "${value}"`, {
      field: name,
    });
  }
  return mailbox;
}

function logFormat(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new ApiError("invalid_parameter", `log-format must be text or json, not "${value}"`, { field: "log-format" });
  return value;
}
