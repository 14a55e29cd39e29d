import { boolean, captchaVerifyUrls, domains, duration, integer, listenAddress, logFormat, mailFrom, scale, smtpUrl, url } from "./config-values.ts";
import { ApiError } from "./errors.ts";
import { parseS3Url } from "./lib/s3.ts";
import { isEmail } from "./lib/validate.ts";
import { DEFAULT_CAPTCHA_TIMEOUT_MS } from "./services/spam/captcha.ts";

// Every setting of `formsvc serve` is declared once, in SETTINGS below: its flag, environment variable,
// default, parser and help line. serve's options (cli/serve.ts), the ServeConfig type and object (config.ts),
// and the README's table of settings (scripts/settings-table.ts, checked by test/unit/settings.test.ts) all
// come from it. A new setting is one entry here; a setting that only tests need is marked `testOnly`: it works
// from the environment (and its flag, if any, is still taken) but is not offered in --help or the README.

/** Let's Encrypt's production directory; its staging one is https://acme-staging-v02.api.letsencrypt.org/directory. */
const LETS_ENCRYPT = "https://acme-v02.api.letsencrypt.org/directory";

/** One setting: how it is given, what it is when not given, and how its text becomes a value. */
export interface Setting<T> {
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
  domains: setting({
    flag: "--domain <name>",
    env: "FORMSVC_DOMAINS",
    shown: "none: plain http on --port",
    help: "serve HTTPS for this domain on 443 with a certificate got and renewed by ACME, and http on 80 answering challenges and redirecting ([docs/deploy.md](docs/deploy.md#https-by-itself-the-first-way-nothing-in-front)); repeatable, space-separated in the environment",
    parse: (value, name) => domains(name, value),
    repeatable: true,
  }),
  acmeEmail: setting({
    flag: "--acme-email <address>",
    env: "FORMSVC_ACME_EMAIL",
    shown: "none",
    help: "the ACME account's contact, told of expiry problems",
    parse: (value, name) => {
      if (value !== undefined && !isEmail(value)) throw new ApiError("invalid_parameter", `${name} must be an email address, not "${value}"`, { field: name });
      return value ?? null;
    },
  }),
  acmeDirectory: setting({
    flag: "--acme-directory <url>",
    env: "FORMSVC_ACME_DIRECTORY",
    default: LETS_ENCRYPT,
    shown: "Let's Encrypt",
    help: "the ACME server's directory; Let's Encrypt's staging one is https://acme-staging-v02.api.letsencrypt.org/directory",
    parse: (value, name) => url(name, value as string),
  }),
  httpsPort: setting({ flag: "--https-port <port>", env: "FORMSVC_HTTPS_PORT", default: "443", help: "the https port with --domain", parse: whole(1, 65535) }),
  httpPort: setting({
    flag: "--http-port <port>",
    env: "FORMSVC_HTTP_PORT",
    default: "80",
    help: "the http port with --domain, for ACME challenges and redirects to https",
    parse: whole(1, 65535),
  }),
  acmeCheckMs: setting({
    flag: "--acme-check-ms <ms>",
    env: "FORMSVC_ACME_CHECK_MS",
    default: String(12 * 3_600_000),
    help: "how often the certificate's expiry is looked at (12 hours)",
    parse: whole(100, 86_400_000),
    testOnly: true,
  }),
  port: setting({
    flag: "--port <port>",
    env: "FORMSVC_PORT",
    default: "8080",
    shown: "8080 (with --domain, --https-port)",
    help: "port to listen on",
    // With --domain the server listens on the https port.
    parse: (value, name, earlier) => ((earlier.domains as string[]).length > 0 ? (earlier.httpsPort as number) : integer(name, value as string, 0, 65535)),
  }),
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
    parse: (value, name, earlier) => url(name, value ?? servedBaseUrl(earlier)),
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
  activityDays: setting({
    flag: "--activity-days <days>",
    env: "FORMSVC_ACTIVITY_DAYS",
    default: "365",
    help: "days the activity log keeps an entry",
    parse: whole(1, 36_500),
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
    help: "behind a reverse proxy (nginx, Caddy): the client address from X-Forwarded-For, and without --base-url the address of each answer from X-Forwarded-Proto and X-Forwarded-Host (or Forwarded); links in mail and webhooks use the address of the first signed-in person or key through the proxy",
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
  stripeSecretKey: setting({
    flag: "--stripe-secret-key <key>",
    env: "FORMSVC_STRIPE_SECRET_KEY",
    shown: "none: no form takes a payment",
    help: "the Stripe account's secret key (sk_test_… first, then sk_live_… or a restricted rk_ key), for forms that take a payment ([docs/api.md](docs/api.md#payments)); never shown",
    parse: (value, name) => {
      if (value !== undefined && !/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/.test(value))
        throw new ApiError("invalid_parameter", `${name} must be a Stripe secret key such as sk_test_…`, { field: name });
      return value ?? null;
    },
  }),
  stripeWebhookSecret: setting({
    flag: "--stripe-webhook-secret <secret>",
    env: "FORMSVC_STRIPE_WEBHOOK_SECRET",
    shown: "none",
    help: "the signing secret (whsec_…) of the Stripe webhook endpoint /stripe/webhook, which its events are verified with; never shown",
    parse: (value, name) => {
      if (value !== undefined && !/^whsec_[A-Za-z0-9+/=_]+$/.test(value))
        throw new ApiError("invalid_parameter", `${name} must be a Stripe webhook signing secret such as whsec_…`, { field: name });
      return value ?? null;
    },
  }),
  stripeApiBase: setting({
    flag: "--stripe-api-base <url>",
    env: "FORMSVC_STRIPE_API_BASE",
    default: "https://api.stripe.com",
    help: "where Stripe's API is asked (a proxy, or a stand-in for tests)",
    parse: (value, name) => url(name, value as string),
  }),
  webhookRotationOverlapMs: setting({
    flag: "--webhook-rotation-overlap <duration>",
    env: "FORMSVC_WEBHOOK_ROTATION_OVERLAP",
    default: "24h",
    help: "after a webhook secret is rotated, sign events with the old secret too for this long (two `v1,` signatures): 24h, 2s, 0s",
    parse: (value, name) => duration(name, value as string, 0, 30 * 86_400_000),
  }),
  backupDir: setting({
    flag: "--backup-dir <dir>",
    env: "FORMSVC_BACKUP_DIR",
    shown: "none: no schedule",
    help: "make a checked copy of the database in this folder on a schedule ([docs/deploy.md](docs/deploy.md#backups))",
    parse: (value) => value ?? null,
  }),
  backupEveryMs: setting({
    flag: "--backup-every <duration>",
    env: "FORMSVC_BACKUP_EVERY",
    default: "24h",
    help: "time between scheduled backups: 24h, 6h, 30m",
    parse: (value, name) => duration(name, value as string, 1000, 366 * 86_400_000),
  }),
  backupKeep: setting({
    flag: "--backup-keep <n>",
    env: "FORMSVC_BACKUP_KEEP",
    default: "7",
    help: "scheduled copies kept, in the folder and in the bucket",
    parse: whole(1, 10_000),
  }),
  backupS3Endpoint: setting({
    flag: "--backup-s3-endpoint <url>",
    env: "FORMSVC_BACKUP_S3_ENDPOINT",
    shown: "AWS",
    help: "the address of an S3-compatible service: MinIO, R2, B2",
    parse: (value, name) => (value === undefined ? null : url(name, value)),
  }),
  backupS3: setting({
    flag: "--backup-s3 <s3://bucket/prefix>",
    env: "FORMSVC_BACKUP_S3",
    shown: "none",
    help: "send each scheduled copy to this bucket too; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION",
    parse: (value, name, earlier) => {
      if (value === undefined) return null;
      const target = parseS3Url(value);
      if (!target) throw new ApiError("invalid_parameter", `${name} must be s3://bucket/prefix, not "${value}"`, { field: name });
      if (!earlier.backupDir) throw new ApiError("invalid_parameter", `${name} needs backup-dir: each copy is made in the folder, then sent`, { field: name });
      return target;
    },
  }),
  updateCheck: setting({
    flag: "--update-check",
    env: "FORMSVC_UPDATE_CHECK",
    default: "false",
    help: "let the dashboard's Account page ask the release address whether a newer formsvc exists, when a user presses its button; off, formsvc never asks ([docs/deploy.md](docs/deploy.md#upgrades-and-rollbacks))",
    parse: onOff,
  }),
  webhookRetryScale: setting({
    flag: "--webhook-retry-scale <factor>",
    env: "FORMSVC_WEBHOOK_RETRY_SCALE",
    default: "1",
    help: "multiply every webhook retry delay (5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h) by this; tests use 0.001",
    parse: (value) => scale(value as string),
    testOnly: true,
  }),
  signInRateScale: setting({
    flag: "--sign-in-rate-scale <factor>",
    env: "FORMSVC_SIGN_IN_RATE_SCALE",
    default: "1",
    help: "multiply how fast the dashboard's sign-in attempts refill (10 a minute per email, 20 per address); tests use 0.0001, so that none refills while they count tries",
    parse: (value, name) => scale(value as string, name),
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
  outboxLeaseMs: setting({
    flag: "--outbox-lease-ms <ms>",
    env: "FORMSVC_OUTBOX_LEASE_MS",
    shown: "twice the longest send",
    help: "how long a claim on a notification or webhook delivery lasts before another process may take it (a live process extends its claims every third of it); tests shorten it so that a killed process's items come back soon, with the senders' timeouts left long",
    parse: (value, name) => (value === undefined ? null : integer(name, value, 300, 3_600_000)),
    testOnly: true,
  }),
  captchaTimeoutMs: setting({
    flag: "--captcha-timeout-ms <ms>",
    env: "FORMSVC_CAPTCHA_TIMEOUT_MS",
    default: String(DEFAULT_CAPTCHA_TIMEOUT_MS),
    help: "how long a captcha provider may take before the submission is kept as unverified spam",
    parse: whole(100, 60_000),
    testOnly: true,
  }),
};

/** The flag's name without dashes or value (`max-body`), as errors name it. */
export const flagName = (flag: string) => flag.replace(/^--/, "").split(" ")[0] as string;

/** The base URL when none is set: a wildcard address is not one a browser can open, so it becomes localhost. */
export function derivedBaseUrl(host: string, port: number): string {
  const linkHost = host === "0.0.0.0" || host === "::" ? "localhost" : host.includes(":") ? `[${host}]` : host;
  return `http://${linkHost}:${port}`;
}

/** The address links carry when --base-url is not given: https and the first domain with --domain, else host and port. */
function servedBaseUrl(earlier: Readonly<Record<string, unknown>>): string {
  const [domain] = earlier.domains as string[];
  const httpsPort = earlier.httpsPort as number;
  if (domain) return `https://${domain}${httpsPort === 443 ? "" : `:${httpsPort}`}`;
  return derivedBaseUrl(earlier.host as string, earlier.port as number);
}
