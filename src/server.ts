import { createApp } from "./app.ts";
import { derivedBaseUrl, type ServeConfig } from "./config.ts";
import { openStore, type SchemaChange } from "./db/client.ts";
import type { AppOptions } from "./http/context.ts";
import { Metrics, serveMetricsAlone } from "./http/metrics.ts";
import { errorResponse } from "./http/respond.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { serverLog } from "./log.ts";
import { startPurger } from "./workers/purger.ts";
import { systemResolver } from "./lib/address.ts";
import { startWebhookSender } from "./workers/webhook-sender.ts";
import pkg from "../package.json" with { type: "json" };
import { createServices, type Services } from "./services/index.ts";

export interface RunningServer {
  /** Where this machine reaches the server (localhost for a wildcard address), whatever its public address. */
  url: string;
  /** The address and port the socket is bound to, as `0.0.0.0:8080` or `[::1]:8080`. */
  bound: string;
  /** Where /metrics is served on an address of its own (`--metrics-listen`), as a URL, or null. */
  metricsUrl: string | null;
  /** The schema version before and after the migrations this start ran. */
  schema: SchemaChange;
  /** The services the server runs on, for what `serve` itself asks of the database. */
  services: Services;
  /** Stops taking connections, lets requests under way finish, lets the sender finish its send, closes the database. */
  stop(): Promise<void>;
}

/** A reason the server cannot start, said in one line (the CLI prints it and exits 1). */
export class StartupError extends Error {}

const hostPort = (host: string, port: number) => `${host.includes(":") ? `[${host}]` : host}:${port}`;

/** Opens the database (migrating it), checks that it takes writes, binds the port and serves; the only place that listens. */
export async function startServer(config: ServeConfig, log: AppOptions["log"] = serverLog(config.logFormat)): Promise<RunningServer> {
  const store = await openStore(config.db, { authToken: config.dbAuthToken });
  try {
    await store.checkWritable();
  } catch (error) {
    store.close();
    throw new StartupError(
      `cannot write the database ${config.db} (${(error as Error).message}): the user formsvc runs as must be able to write the file and ` +
        "its directory, where SQLite keeps the -wal and -shm files beside it",
    );
  }
  const urls = { baseUrl: () => config.baseUrl, submitUrl: () => config.submitUrl };
  const webhookOptions = { allowPrivate: config.webhooksAllowPrivate, resolve: systemResolver };
  const services = createServices(store, urls, { webhooks: webhookOptions });
  const metrics = new Metrics({
    outbox: () => services.notifications.outboxDepth(),
    webhookOutbox: () => services.webhooks.outboxDepth(),
    confirmations: () => services.notifications.confirmationCounts(),
  });
  const app = createApp({
    services,
    maxBody: config.maxBody,
    maxFileSize: config.maxFileSize,
    trustProxy: config.trustProxy,
    rateLimiter: new RateLimiter(config.rateLimit, config.rateBurst),
    captcha: { verifyUrls: config.captchaVerifyUrls, timeoutMs: config.captchaTimeoutMs, log: (line) => log.request(line) },
    log,
    metrics,
    serveMetrics: config.metrics,
  });
  let server: ReturnType<typeof Bun.serve>;
  let metricsServer: ReturnType<typeof Bun.serve> | null = null;
  try {
    server = Bun.serve({
      hostname: config.host,
      port: config.port,
      // Bun's own guard answers a bare 413 (for a Content-Length over it, before the app sees the request), not
      // the contract's. So it is set out of the way, and the app is the one limit: it refuses a declared length
      // over --max-body at once and stops reading a chunked body as soon as it passes it; a route that takes no
      // body never reads one, so nothing is buffered unasked.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      fetch: (request, srv) => app.fetch(request, { ip: srv.requestIP(request)?.address }),
      error: (error) => errorResponse(error, { onInternal: (e) => log.error("unhandled", e) }),
    });
    if (config.metricsListen) metricsServer = serveMetricsAlone(config.metricsListen, metrics);
  } catch (error) {
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
        log: { line: log.request, error: log.error },
      })
    : null;
  // Retention applies at start and every hour; it deletes in small batches beside the traffic.
  const purger = startPurger(services.retention, { intervalMs: config.purgeIntervalMs, now: Date.now, log: { line: log.request, error: log.error } });
  const webhookSender = startWebhookSender(services.webhooks, {
    ...webhookOptions,
    retryScale: config.webhookRetryScale,
    timeoutMs: config.webhookTimeoutMs,
    userAgent: `formsvc/${pkg.version}`,
    log: { line: log.request, error: log.error },
  });
  const stop = async () => {
    await server.stop();
    await metricsServer?.stop();
    await sender?.stop();
    await webhookSender.stop();
    await purger.stop();
    store.close();
  };
  try {
    // With --port 0 the port is known only now: links follow it unless a base URL was given.
    if (config.derived.baseUrl) config.baseUrl = derivedBaseUrl(config.host, server.port!);
    if (config.derived.submitUrl) config.submitUrl = config.baseUrl;
    // The local CLI shows forms' submitUrl as this server does, without being told the addresses again.
    await services.settings.recordServedUrls({ baseUrl: config.baseUrl, submitUrl: config.submitUrl });
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url: derivedBaseUrl(config.host, server.port!),
    bound: hostPort(config.host, server.port!),
    metricsUrl: metricsServer ? `http://${hostPort(config.metricsListen!.host, metricsServer.port!)}/metrics` : null,
    schema: store.schema,
    services,
    stop,
  };
}
