import { dirname, join, resolve } from "node:path";
import { startHttps } from "./acme.ts";
import { createApp } from "./app.ts";
import { type BackupStatus, startBackups } from "./workers/backups.ts";
import { derivedBaseUrl } from "./config-settings.ts";
import type { ServeConfig } from "./config.ts";
import { existsSync } from "node:fs";
import { openStore, type SchemaChange } from "./db/client.ts";
import { isLibsqlUrl } from "./db/location.ts";
import { backupBeforeMigrating, sqliteSchemaStatus } from "./db/migrate.ts";
import type { AppOptions } from "./http/context.ts";
import { Metrics, serveMetricsAlone } from "./http/metrics.ts";
import { drainBody } from "./http/drain.ts";
import { currentPublicOrigin } from "./http/forwarded.ts";
import { errorResponse } from "./http/respond.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { serverLog } from "./log.ts";
import { smtpMailer } from "./mailer.ts";
import { startPurger } from "./workers/purger.ts";
import { systemResolver } from "./lib/address.ts";
import { checkForUpdate } from "./lib/release.ts";
import { startWebhookSender } from "./workers/webhook-sender.ts";
import pkg from "../package.json" with { type: "json" };
import { createServices, type Services } from "./services/index.ts";

export interface RunningServer {
  /** Where this machine reaches the server (localhost for a wildcard address), whatever its public address. */
  url: string;
  /** The address and port the socket is bound to, as `0.0.0.0:8080` or `[::1]:8080`. */
  bound: string;
  /** With --domain: when the certificate in force expires (ms), and the http listener's port; else null. */
  https: { expires(): number; httpPort: number } | null;
  /** Where /metrics is served on an address of its own (`--metrics-listen`), as a URL, or null. */
  metricsUrl: string | null;
  /** The schema version before and after the migrations this start ran. */
  schema: SchemaChange;
  /** Where the database was copied before this start migrated it, or null when it did not. */
  schemaBackup: string | null;
  /** The backup schedule's last result, or null without --backup-dir. */
  backups: (() => BackupStatus) | null;
  /** The services the server runs on, for what `serve` itself asks of the database. */
  services: Services;
  /** Stops taking connections, lets requests under way finish, lets the sender finish its send, closes the database. */
  stop(): Promise<void>;
}

/** A reason the server cannot start, said in one line (the CLI prints it and exits 1). */
export class StartupError extends Error {}

/** A SQLite file an earlier formsvc left is copied into its own folder before serve migrates it; the copy's path. */
function backupIfBehind(db: string): string | null {
  if (db === ":memory:" || isLibsqlUrl(db) || !existsSync(db)) return null;
  const status = sqliteSchemaStatus(db);
  if (status.applied === 0 || status.pending.length === 0) return null;
  try {
    return backupBeforeMigrating(db, status.applied);
  } catch (error) {
    throw new StartupError(`cannot back up ${db} before migrating it (${(error as Error).message}); the database was left unchanged`);
  }
}

const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/** Opens the database (migrating it), checks that it takes writes, binds the port and serves; the only place that listens. */
export async function startServer(config: ServeConfig, log: AppOptions["log"] = serverLog(config.logFormat)): Promise<RunningServer> {
  const schemaBackup = backupIfBehind(config.db);
  const store = await openStore(config.db, { authToken: config.dbAuthToken, migrate: true });
  try {
    await store.checkWritable();
  } catch (error) {
    store.close();
    throw new StartupError(
      `cannot write the database ${config.db} (${(error as Error).message}): the user formsvc runs as must be able to write the file and ` +
        "its directory, where SQLite keeps the -wal and -shm files beside it",
    );
  }
  // A link that leaves a request (a mail, a webhook, the confirmation link, submitUrl) never comes from a
  // request's headers, which any client can write: it is --base-url, else the public address learnt from the
  // first signed-in person or key to come through the trusted proxy, else the address serve listens on
  // (docs/deploy.md, "The public address"). Only the answer to a request itself follows its forwarded headers.
  let learnt: string | null = null;
  const baseUrl = () => (config.derived.baseUrl && learnt) || config.baseUrl;
  const submitUrl = () => (config.derived.submitUrl ? baseUrl() : config.submitUrl);
  const urls = {
    baseUrl,
    submitUrl,
    requestBaseUrl: () => (config.derived.baseUrl && currentPublicOrigin()) || baseUrl(),
    known: () => !config.derived.baseUrl || learnt !== null,
    async learn() {
      const origin = currentPublicOrigin();
      if (!config.derived.baseUrl || learnt !== null || !origin) return;
      // The first address recorded wins, in every process on the database.
      learnt = await services.settings.learnBaseUrl(origin);
      await services.settings.recordServedUrls({ baseUrl: baseUrl(), submitUrl: submitUrl() });
    },
  };
  const webhookOptions = { allowPrivate: config.webhooksAllowPrivate, resolve: systemResolver, rotationOverlapMs: config.webhookRotationOverlapMs };
  const payments = { secretKey: config.stripeSecretKey, webhookSecret: config.stripeWebhookSecret, apiBase: config.stripeApiBase };
  const services = createServices(store, urls, { webhooks: webhookOptions, payments });
  let backups: ReturnType<typeof startBackups> | null = null;
  const backupStatus = () => backups?.status() ?? null;
  const metrics = new Metrics({
    outbox: () => services.notifications.outboxDepth(),
    webhookOutbox: () => services.webhooks.outboxDepth(),
    openCircuits: () => services.webhooks.openCircuits(Date.now()),
    backup: backupStatus,
    confirmations: () => services.notifications.confirmationCounts(),
  });
  const app = createApp({
    services,
    mail: config.smtpUrl ? smtpMailer(config.smtpUrl, config.mailFrom, config.mailTimeoutMs) : null,
    maxBody: config.maxBody,
    maxFileSize: config.maxFileSize,
    trustProxy: config.trustProxy,
    rateLimiter: new RateLimiter(config.rateLimit, config.rateBurst),
    captcha: { verifyUrls: config.captchaVerifyUrls, timeoutMs: config.captchaTimeoutMs, log: (line) => log.request(line) },
    log,
    metrics,
    serveMetrics: config.metrics,
    backups: backupStatus,
    signInRateScale: config.signInRateScale,
    updateCheck: config.updateCheck ? () => checkForUpdate() : null,
  });
  const listen = (tls?: { cert: string; key: string }) =>
    Bun.serve({
      hostname: config.host,
      port: config.port,
      // With a certificate of its own the https listener is replaced, not restarted, when it is renewed.
      ...(tls ? { tls: { cert: tls.cert, key: tls.key }, reusePort: true } : {}),
      // Bun's own guard answers a bare 413 (for a Content-Length over it, before the app sees the request), not
      // the API's (docs/api.md, "Body size"). So it is set out of the way, and the app is the one limit: it refuses a declared length
      // over --max-body at once and stops reading a chunked body as soon as it passes it; a route that takes no
      // body never reads one, so nothing is buffered unasked.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      fetch: async (request, srv) => {
        const response = await app.fetch(request, { ip: srv.requestIP(request)?.address });
        // An answer given before the body was read reaches a proxy only once the proxy has sent the body.
        if (!(await drainBody(request))) response.headers.set("connection", "close");
        if (tls) response.headers.set("strict-transport-security", "max-age=31536000");
        return response;
      },
      error: (error) => errorResponse(error, { onInternal: (e) => log.error("unhandled", e) }),
    });
  let server: ReturnType<typeof Bun.serve>;
  let https: Awaited<ReturnType<typeof startHttps>> | null = null;
  let metricsServer: ReturnType<typeof Bun.serve> | null = null;
  try {
    if (config.domains.length > 0) {
      const dir = isLibsqlUrl(config.db) ? resolve("acme") : join(dirname(resolve(config.db)), "acme");
      const settings = { domains: config.domains, email: config.acmeEmail, directoryUrl: config.acmeDirectory, dir };
      const { httpPort, httpsPort, acmeCheckMs: checkMs } = config;
      https = await startHttps({ settings, host: config.host, httpPort, httpsPort, checkMs, log: { line: log.request, error: log.error } }, listen);
      server = https.server();
    } else {
      server = listen();
    }
    if (config.metricsListen) metricsServer = serveMetricsAlone(config.metricsListen, metrics);
  } catch (error) {
    await https?.stop();
    await metricsServer?.stop(true);
    store.close();
    throw new StartupError(`cannot listen: ${(error as Error).message}`);
  }
  // Without an SMTP server nothing is sent: live forms' notifications wait, pending, for one to be configured.
  // nodemailer is loaded only when mail is on.
  const sender = config.smtpUrl
    ? (await import("./workers/mail-sender.ts")).startSender(services.notifications, {
        smtpUrl: config.smtpUrl,
        from: config.mailFrom,
        retryBaseMs: config.mailRetryBaseMs,
        timeoutMs: config.mailTimeoutMs,
        leaseMs: config.outboxLeaseMs ?? undefined,
        log: { line: log.request, error: log.error },
      })
    : null;
  // Retention applies at start and every hour; it deletes in small batches beside the traffic.
  const purger = startPurger(services.retention, {
    intervalMs: config.purgeIntervalMs,
    now: Date.now,
    log: { line: log.request, error: log.error },
    activity: { service: services.activity, days: config.activityDays },
    idempotency: services.idempotency,
    payments: services.payments,
  });
  const webhookSender = startWebhookSender(services.webhooks, {
    ...webhookOptions,
    retryScale: config.webhookRetryScale,
    timeoutMs: config.webhookTimeoutMs,
    leaseMs: config.outboxLeaseMs ?? undefined,
    userAgent: `formsvc/${pkg.version}`,
    log: { line: log.request, error: log.error },
  });
  if (config.backupDir) {
    const { dir, everyMs, keep, s3 } = { dir: config.backupDir, everyMs: config.backupEveryMs, keep: config.backupKeep, s3: config.backupS3Target };
    backups = startBackups(store, { dir, everyMs, keep, s3, log: { line: log.request, error: log.error } });
  }
  const stop = async () => {
    await (https ? https.stop() : server.stop());
    await backups?.stop();
    await metricsServer?.stop();
    // Both senders finish their sends under way side by side, within one budget.
    await Promise.all([sender?.stop(), webhookSender.stop()]);
    await purger.stop();
    store.close();
  };
  try {
    // With --port 0 the port is known only now: links follow it unless a base URL was given.
    if (config.derived.baseUrl) config.baseUrl = derivedBaseUrl(config.host, server.port!);
    if (config.derived.submitUrl) config.submitUrl = config.baseUrl;
    if (config.derived.baseUrl && config.trustProxy) learnt = await services.settings.learntBaseUrl();
    // The local CLI shows forms' submitUrl as this server does, without being told the addresses again.
    await services.settings.recordServedUrls({ baseUrl: baseUrl(), submitUrl: submitUrl() });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: https ? config.baseUrl : derivedBaseUrl(config.host, server.port!),
    bound: hostPort(config.host, server.port!),
    metricsUrl: metricsServer ? `http://${hostPort(config.metricsListen!.host, metricsServer.port!)}/metrics` : null,
    schema: store.schema,
    schemaBackup,
    https: https ? { expires: https.expires, httpPort: https.http.port! } : null,
    backups: backups ? backups.status : null,
    services,
    stop,
  };
}
