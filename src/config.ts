import { LETS_ENCRYPT } from "./acme.ts";
import { parseS3Url, type S3Target } from "./backups.ts";
import { ApiError } from "./errors.ts";
import { parseMailbox, type Mailbox } from "./lib/mail.ts";
import { parseDuration } from "./lib/time.ts";
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
  /** How long after a secret's rotation events are signed with the old secret too (`--webhook-rotation-overlap 24h`). */
  webhookRotationOverlapMs: number;
  /** Each captcha provider's siteverify address, the provider's own unless replaced with --captcha-verify-url. */
  captchaVerifyUrls: Record<CaptchaProvider, string>;
  /** How long a captcha provider may take (5 s; lower only in tests). */
  captchaTimeoutMs: number;
  /** The folder scheduled backups go to (`--backup-dir`), or null: no schedule. */
  backupDir: string | null;
  /** Time between scheduled backups (`--backup-every 24h`). */
  backupEveryMs: number;
  /** How many copies are kept, in the folder and in the bucket (`--backup-keep 7`). */
  backupKeep: number;
  /** The bucket copies are sent to too (`--backup-s3 s3://bucket/prefix`, credentials from AWS_*), or null. */
  backupS3: S3Target | null;
  /** An S3-compatible service's address (MinIO, R2, B2), or null for AWS. */
  backupS3Endpoint: string | null;
  /** The domains HTTPS is served for, with a certificate got by ACME (`--domain`, repeatable); empty: plain http. */
  domains: string[];
  /** The ACME account's contact address (`--acme-email`), or null. */
  acmeEmail: string | null;
  /** The ACME server's directory (`--acme-directory`; Let's Encrypt's by default). */
  acmeDirectory: string;
  /** The https and http ports with --domain (443 and 80; other ports for tests, or behind port forwarding). */
  httpsPort: number;
  httpPort: number;
  /** How often the certificate's expiry is looked at (12 h; a test-only setting, FORMSVC_ACME_CHECK_MS). */
  acmeCheckMs: number;
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
  webhookRotationOverlapMs: "FORMSVC_WEBHOOK_ROTATION_OVERLAP",
  captchaVerifyUrls: "FORMSVC_CAPTCHA_VERIFY_URLS",
  captchaTimeoutMs: "FORMSVC_CAPTCHA_TIMEOUT_MS",
  backupDir: "FORMSVC_BACKUP_DIR",
  backupEveryMs: "FORMSVC_BACKUP_EVERY",
  backupKeep: "FORMSVC_BACKUP_KEEP",
  backupS3: "FORMSVC_BACKUP_S3",
  backupS3Endpoint: "FORMSVC_BACKUP_S3_ENDPOINT",
  domains: "FORMSVC_DOMAINS",
  acmeEmail: "FORMSVC_ACME_EMAIL",
  acmeDirectory: "FORMSVC_ACME_DIRECTORY",
  httpsPort: "FORMSVC_HTTPS_PORT",
  httpPort: "FORMSVC_HTTP_PORT",
  acmeCheckMs: "FORMSVC_ACME_CHECK_MS",
};

const DEFAULTS = {
  host: "0.0.0.0",
  port: "8080",
  db: "./formsvc.db",
  maxBody: "1048576",
  maxFileSize: "10485760",
  purgeIntervalMs: "3600000",
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
  webhookRotationOverlapMs: "24h",
  captchaTimeoutMs: "5000",
  backupEveryMs: "24h",
  backupKeep: "7",
  acmeDirectory: LETS_ENCRYPT,
  httpsPort: "443",
  httpPort: "80",
  acmeCheckMs: String(12 * 3_600_000),
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
  const https = httpsSettings(pick);
  const port = https.domains.length > 0 ? https.httpsPort : integer("port", pick("port")!, 0, 65535);
  const linkHost = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  // With --domain the public address is the first domain's, over https.
  const served = https.domains.length > 0 ? `https://${https.domains[0]}${https.httpsPort === 443 ? "" : `:${https.httpsPort}`}` : `http://${linkHost}:${port}`;
  const baseUrl = url("base-url", pick("baseUrl") ?? served);
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
    webhookRotationOverlapMs: duration("webhook-rotation-overlap", pick("webhookRotationOverlapMs")!, 0, 30 * 86_400_000),
    captchaVerifyUrls: captchaVerifyUrls(pick("captchaVerifyUrls")),
    captchaTimeoutMs: integer("captcha-timeout-ms", pick("captchaTimeoutMs")!, 100, 60_000),
    ...backupSettings(pick, env),
    ...https,
    derived: { baseUrl: pick("baseUrl") === undefined && https.domains.length === 0, submitUrl: pick("submitUrl") === undefined },
  };
}

/** HTTPS by ACME: the domains (space- or comma-separated in FORMSVC_DOMAINS), the ACME server, the ports. */
function httpsSettings(pick: (key: keyof typeof ENV) => string | undefined) {
  const domains = (pick("domains") ?? "").split(/[\s,]+/).filter(Boolean);
  for (const domain of domains) {
    if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain)) {
      throw new ApiError("invalid_parameter", `domain must be a host name such as forms.example.com, not "${domain}"`, { field: "domain" });
    }
  }
  const email = pick("acmeEmail");
  if (email !== undefined && !isEmail(email))
    throw new ApiError("invalid_parameter", `acme-email must be an email address, not "${email}"`, { field: "acme-email" });
  return {
    domains: domains.map((domain) => domain.toLowerCase()),
    acmeEmail: email ?? null,
    acmeDirectory: url("acme-directory", pick("acmeDirectory")!),
    httpsPort: integer("https-port", pick("httpsPort")!, 1, 65535),
    httpPort: integer("http-port", pick("httpPort")!, 1, 65535),
    acmeCheckMs: integer("acme-check-ms", pick("acmeCheckMs")!, 100, 86_400_000),
  };
}

/** The backup schedule's settings; the bucket's credentials come from the usual AWS environment variables. */
function backupSettings(pick: (key: keyof typeof ENV) => string | undefined, env: Record<string, string | undefined>) {
  const backupDir = pick("backupDir") ?? null;
  const s3 = pick("backupS3");
  const endpoint = pick("backupS3Endpoint");
  const backupS3Endpoint = endpoint === undefined ? null : url("backup-s3-endpoint", endpoint);
  let backupS3: S3Target | null = null;
  if (s3 !== undefined) {
    const target = parseS3Url(s3);
    if (!target) throw new ApiError("invalid_parameter", `backup-s3 must be s3://bucket/prefix, not "${s3}"`, { field: "backup-s3" });
    if (!backupDir) throw new ApiError("invalid_parameter", "backup-s3 needs backup-dir: each copy is made in the folder, then sent", { field: "backup-s3" });
    if (!env.AWS_ACCESS_KEY_ID || !env.AWS_SECRET_ACCESS_KEY) {
      throw new ApiError("invalid_parameter", "backup-s3 needs the bucket's credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY", {
        field: "backup-s3",
      });
    }
    backupS3 = {
      bucket: target.bucket,
      prefix: target.key,
      endpoint: backupS3Endpoint ?? undefined,
      region: env.AWS_REGION || env.AWS_DEFAULT_REGION || "us-east-1",
      accessKeyId: env.AWS_ACCESS_KEY_ID,
      secretAccessKey: env.AWS_SECRET_ACCESS_KEY,
      sessionToken: env.AWS_SESSION_TOKEN || undefined,
    };
  }
  return {
    backupDir,
    backupEveryMs: duration("backup-every", pick("backupEveryMs")!, 1000, 366 * 86_400_000),
    backupKeep: integer("backup-keep", pick("backupKeep")!, 1, 10_000),
    backupS3,
    backupS3Endpoint,
  };
}

/** A duration such as 90s, 15m, 24h, 7d (0s for none), from min to max milliseconds. */
function duration(name: string, value: string, min: number, max: number): number {
  const ms = parseDuration(value);
  if (ms === null || ms < min || ms > max) {
    throw new ApiError("invalid_parameter", `${name} must be a duration such as 90s, 15m, 24h or 7d, at most ${max / 86_400_000}d, not "${value}"`, {
      field: name,
    });
  }
  return ms;
}

function logFormat(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new ApiError("invalid_parameter", `log-format must be text or json, not "${value}"`, { field: "log-format" });
  return value;
}
