import type { Mailer } from "../mailer.ts";
import type { BackupStatus } from "../workers/backups.ts";
import type { UpdateCheck } from "../lib/release.ts";
import type { Services } from "../services/index.ts";
import type { Metrics } from "./metrics.ts";
import type { CaptchaOptions } from "../services/spam/captcha.ts";
import type { RateLimiter } from "./rate-limit.ts";
import type { SsoService } from "../services/people/sso.ts";

/** What the app needs to answer requests. */
export interface AppOptions {
  services: Services;
  maxBody: number;
  /** Largest file a multipart post may carry, in bytes (default 10 MiB). */
  maxFileSize?: number;
  trustProxy: boolean;
  rateLimiter: RateLimiter;
  /** Where and how long captcha tokens are verified; the providers' own addresses and 5 s when unset. */
  captcha?: CaptchaOptions;
  /** One line per request and the stacks of unexpected errors; never keys or bodies. */
  log: { request(line: string): void; error(message: string, error: unknown, requestId?: string): void; access?(entry: AccessEntry): void };
  /** Counts requests and submissions for /metrics. */
  metrics?: Metrics;
  /** Mail sent at once (invitations, the test email) and the server it goes through; null or absent: mail is off. */
  mail?: Mailer | null;
  /** Answer GET /metrics on this app (`--metrics`); else it is served on its own address, or not at all. */
  serveMetrics?: boolean;
  /** The backup schedule's last result (`--backup-dir`), or null without one; the dashboard's account page shows it. */
  backups?: () => BackupStatus | null;
  /** Multiplies how fast the dashboard's sign-in attempts refill (1 unless a test stops the refill to count tries). */
  signInRateScale?: number;
  /** Single sign-on through an OpenID provider (`--oidc-issuer`); absent: the sign-in page offers none. */
  sso?: SsoService | null;
  /** False (`--password-signin false`): only single sign-on and passkeys sign in. */
  passwordSignin?: boolean;
  /** Asks the release address for the newest version (`--update-check`); absent: the dashboard offers no check. */
  updateCheck?: (() => Promise<UpdateCheck>) | null;
}

/** What the log says of one request: never its query string, key or body. */
export interface AccessEntry {
  method: string;
  /** The path without its query string. */
  path: string;
  status: number;
  ms: number;
  /** The client's address (the proxy's view with --trust-proxy). */
  ip: string;
  userAgent: string | null;
  /** The X-Request-Id of the answer, which a 5xx error's body carries too. */
  requestId: string;
}

/** One request on its way through a handler. */
export interface RequestContext {
  request: Request;
  url: URL;
  params: Record<string, string>;
  /** The client's address: the socket's, or with --trust-proxy the one the proxy saw. */
  ip: string;
  services: Services;
  options: AppOptions;
}

export type Handler = (ctx: RequestContext) => Promise<Response>;
