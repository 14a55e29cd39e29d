import { ApiError } from "./errors.ts";
import { parseMailbox, type Mailbox } from "./lib/mail.ts";
import { isEmail } from "./lib/validate.ts";
import { CAPTCHA_VERIFY_URLS } from "./lib/captcha.ts";
import { CAPTCHA_PROVIDERS, type CaptchaProvider } from "./services/forms.ts";

/** Everything `formsvc serve` can be told, after flags, environment and defaults are merged and checked. */
export interface ServeConfig {
  host: string;
  port: number;
  db: string;
  /** The token of a libSQL server (Turso), from FORMSVC_DB_AUTH_TOKEN only: never a flag, so never in `ps` or a log line. */
  dbAuthToken?: string;
  /** Public base address of the server, used in submitUrl and Location; derived from host and port when unset. */
  baseUrl: string;
  /** Base address of the public submission host (a separate host name), or the base URL. */
  submitUrl: string;
  maxBody: number;
  /** Largest file one post may carry, in bytes (a post is also held to maxBody as a whole). */
  maxFileSize: number;
  /** Time between retention purges (an hour; tests shorten it). */
  purgeIntervalMs: number;
  /** How many days the activity log keeps an entry (`--activity-days`, 365). */
  activityDays: number;
  /** Submissions per minute per client address per form; 0 turns the limit off. */
  rateLimit: number;
  rateBurst: number;
  trustProxy: boolean;
  /** The SMTP server notifications go out through (smtp:// or smtps://, credentials in the URL); null: mail is off. */
  smtpUrl: string | null;
  /** The From of notification emails. */
  mailFrom: Mailbox;
  /** How long after a failed attempt a notification is tried again the first time; later delays grow from it. */
  mailRetryBaseMs: number;
  /** How long the mail server may take to connect, greet or answer (10 s; lower only in tests); a claim on a notification lasts ten of these. */
  mailTimeoutMs: number;
  /** Serve GET /metrics on the main port (`--metrics`). */
  metrics: boolean;
  /** Serve GET /metrics on this address alone (`--metrics-listen 127.0.0.1:9090`), or null. */
  metricsListen: { host: string; port: number } | null;
  /** How log lines are written: text for people, json (one object a line) for log shippers. */
  logFormat: "text" | "json";
  /** Let webhooks reach loopback, private and other special addresses (a receiver on this machine, in tests). */
  webhooksAllowPrivate: boolean;
  /** Multiplies every delay of the webhook retry schedule (0.001 in tests). */
  webhookRetryScale: number;
  /** How long a webhook receiver may take to answer (10 s; lower only in tests). */
  webhookTimeoutMs: number;
  /** Each captcha provider's siteverify address, the provider's own unless replaced with --captcha-verify-url. */
  captchaVerifyUrls: Record<CaptchaProvider, string>;
  /** How long a captcha provider may take (5 s; lower only in tests). */
  captchaTimeoutMs: number;
  /** Which of baseUrl and submitUrl were derived from host and port (and so follow the port actually bound). */
  derived: { baseUrl: boolean; submitUrl: boolean };
}

export type ServeFlags = Partial<Record<Exclude<keyof ServeConfig, "derived" | "dbAuthToken">, string | number | boolean | undefined>>;

const ENV: Record<Exclude<keyof ServeConfig, "derived" | "dbAuthToken">, string> = {
  host: "FORMSVC_HOST",
  port: "FORMSVC_PORT",
  db: "FORMSVC_DB",
  baseUrl: "FORMSVC_BASE_URL",
  submitUrl: "FORMSVC_SUBMIT_URL",
  maxBody: "FORMSVC_MAX_BODY",
  maxFileSize: "FORMSVC_MAX_FILE_SIZE",
  purgeIntervalMs: "FORMSVC_PURGE_INTERVAL_MS",
  activityDays: "FORMSVC_ACTIVITY_DAYS",
  rateLimit: "FORMSVC_RATE_LIMIT",
  rateBurst: "FORMSVC_RATE_BURST",
  trustProxy: "FORMSVC_TRUST_PROXY",
  smtpUrl: "FORMSVC_SMTP_URL",
  mailFrom: "FORMSVC_MAIL_FROM",
  mailRetryBaseMs: "FORMSVC_MAIL_RETRY_BASE_MS",
  mailTimeoutMs: "FORMSVC_MAIL_TIMEOUT_MS",
  metrics: "FORMSVC_METRICS",
  metricsListen: "FORMSVC_METRICS_LISTEN",
  logFormat: "FORMSVC_LOG_FORMAT",
  webhooksAllowPrivate: "FORMSVC_WEBHOOKS_ALLOW_PRIVATE",
  webhookRetryScale: "FORMSVC_WEBHOOK_RETRY_SCALE",
  webhookTimeoutMs: "FORMSVC_WEBHOOK_TIMEOUT_MS",
  captchaVerifyUrls: "FORMSVC_CAPTCHA_VERIFY_URLS",
  captchaTimeoutMs: "FORMSVC_CAPTCHA_TIMEOUT_MS",
};

const DEFAULTS = {
  host: "0.0.0.0",
  port: "8080",
  db: "./formsvc.db",
  maxBody: "1048576",
  maxFileSize: "10485760",
  purgeIntervalMs: "3600000",
  activityDays: "365",
  rateLimit: "30",
  rateBurst: "10",
  trustProxy: "false",
  mailRetryBaseMs: "60000",
  mailTimeoutMs: "10000",
  metrics: "false",
  logFormat: "text",
  webhooksAllowPrivate: "false",
  webhookRetryScale: "1",
  webhookTimeoutMs: "10000",
  captchaTimeoutMs: "5000",
};

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
  const pick = (key: keyof typeof ENV): string | undefined => {
    const flag = flags[key];
    if (flag !== undefined && flag !== "") return String(flag);
    const fromEnv = env[ENV[key]];
    if (fromEnv !== undefined && fromEnv !== "") return fromEnv;
    return DEFAULTS[key as keyof typeof DEFAULTS];
  };
  const host = pick("host")!;
  // The host name that links should carry: a wildcard address is not one a browser can open.
  const port = integer("port", pick("port")!, 0, 65535);
  const linkHost = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  const baseUrl = url("base-url", pick("baseUrl") ?? `http://${linkHost}:${port}`);
  const trust = pick("trustProxy")!;
  if (!["true", "false", "1", "0"].includes(trust)) {
    throw new ApiError("invalid_parameter", `trust-proxy must be true or false, not "${trust}"`, { field: "trust-proxy" });
  }
  const smtp = pick("smtpUrl");
  const from = pick("mailFrom");
  const mailFrom = from === undefined ? defaultMailFrom(smtp === undefined ? null : smtpUrl(smtp)) : parseMailbox(from);
  if (!mailFrom) {
    throw new ApiError("invalid_parameter", `mail-from must be an address such as you@example.com or "Forms <forms@example.com>", not "${from}"`, {
      field: "mail-from",
    });
  }
  return {
    host,
    port,
    db: pick("db")!,
    dbAuthToken: env.FORMSVC_DB_AUTH_TOKEN || undefined,
    baseUrl,
    submitUrl: url("submit-url", pick("submitUrl") ?? baseUrl),
    maxBody: integer("max-body", pick("maxBody")!, 1, 1024 * 1024 * 1024),
    maxFileSize: integer("max-file-size", pick("maxFileSize")!, 1, 1024 * 1024 * 1024),
    purgeIntervalMs: integer("purge-interval-ms", pick("purgeIntervalMs")!, 10, 24 * 3_600_000),
    activityDays: integer("activity-days", pick("activityDays")!, 1, 36500),
    rateLimit: integer("rate-limit", pick("rateLimit")!, 0, 1_000_000),
    rateBurst: integer("rate-burst", pick("rateBurst")!, 1, 1_000_000),
    trustProxy: trust === "true" || trust === "1",
    smtpUrl: smtp === undefined ? null : smtpUrl(smtp),
    mailFrom,
    mailRetryBaseMs: integer("mail-retry-base-ms", pick("mailRetryBaseMs")!, 1, 3_600_000),
    mailTimeoutMs: integer("mail-timeout-ms", pick("mailTimeoutMs")!, 100, 60_000),
    metrics: boolean("metrics", pick("metrics")!),
    metricsListen: pick("metricsListen") === undefined ? null : listenAddress("metrics-listen", pick("metricsListen")!),
    logFormat: logFormat(pick("logFormat")!),
    webhooksAllowPrivate: boolean("webhooks-allow-private", pick("webhooksAllowPrivate")!),
    webhookRetryScale: scale(pick("webhookRetryScale")!),
    webhookTimeoutMs: integer("webhook-timeout-ms", pick("webhookTimeoutMs")!, 100, 60_000),
    captchaVerifyUrls: captchaVerifyUrls(pick("captchaVerifyUrls")),
    captchaTimeoutMs: integer("captcha-timeout-ms", pick("captchaTimeoutMs")!, 100, 60_000),
    derived: { baseUrl: pick("baseUrl") === undefined, submitUrl: pick("submitUrl") === undefined },
  };
}

function logFormat(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new ApiError("invalid_parameter", `log-format must be text or json, not "${value}"`, { field: "log-format" });
  return value;
}
