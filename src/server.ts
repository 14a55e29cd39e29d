import { createApp } from "./app.ts";
import { derivedBaseUrl, type ServeConfig } from "./config.ts";
import { openStore } from "./db/client.ts";
import type { AppOptions } from "./http/context.ts";
import { errorResponse } from "./http/respond.ts";
import { RateLimiter } from "./http/rate-limit.ts";
import { startSender } from "./sender.ts";
import { createServices, type Services } from "./services/index.ts";

export interface RunningServer {
  /** Where this machine reaches the server (localhost for a wildcard address), whatever its public address. */
  url: string;
  /** The services the server runs on, for what `serve` itself asks of the database. */
  services: Services;
  stop(): Promise<void>;
}

/**
 * Request lines gathered and written once per turn of the event loop: a synchronous write per request
 * would hold every answer behind the terminal or pipe that reads the log.
 */
function bufferedLines(write: (text: string) => void): (line: string) => void {
  let buffer = "";
  const flush = () => {
    const text = buffer;
    buffer = "";
    if (text) write(text);
  };
  process.on("exit", flush);
  return (line) => {
    if (!buffer) setImmediate(flush);
    buffer += `${new Date().toISOString()} ${line}\n`;
  };
}

const defaultLog: AppOptions["log"] = {
  request: bufferedLines((text) => process.stdout.write(text)),
  error: (message, error) => console.error(`${new Date().toISOString()} ${message}:`, error),
};

/** Opens the database (migrating it), binds the port and serves; the only place that listens. */
export async function startServer(config: ServeConfig, log: AppOptions["log"] = defaultLog): Promise<RunningServer> {
  const store = await openStore(config.db);
  const urls = { baseUrl: () => config.baseUrl, submitUrl: () => config.submitUrl };
  const services = createServices(store, urls);
  const app = createApp({
    services,
    maxBody: config.maxBody,
    trustProxy: config.trustProxy,
    rateLimiter: new RateLimiter(config.rateLimit, config.rateBurst),
    log,
  });
  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    // Bodies are limited by the app itself (413 in the contract's shape); this is only the outer guard.
    maxRequestBodySize: config.maxBody + 64 * 1024 * 1024,
    fetch: (request, srv) => app.fetch(request, { ip: srv.requestIP(request)?.address }),
    error: (error) => errorResponse(error, { onInternal: (e) => log.error("unhandled", e) }),
  });
  // Without an SMTP server nothing is sent: live forms' notifications wait, pending, for one to be configured.
  const sender = config.smtpUrl
    ? startSender(services.notifications, {
        smtpUrl: config.smtpUrl,
        from: config.mailFrom,
        retryBaseMs: config.mailRetryBaseMs,
        log: { line: log.request, error: log.error },
      })
    : null;
  // With --port 0 the port is known only now: links follow it unless a base URL was given.
  if (config.derived.baseUrl) config.baseUrl = derivedBaseUrl(config.host, server.port!);
  if (config.derived.submitUrl) config.submitUrl = config.baseUrl;
  // The local CLI shows forms' submitUrl as this server does, without being told the addresses again.
  await services.settings.recordServedUrls({ baseUrl: config.baseUrl, submitUrl: config.submitUrl });
  return {
    url: derivedBaseUrl(config.host, server.port!),
    services,
    /** Stops taking connections and lets requests under way finish (their submissions stored and answered). */
    async stop() {
      await server.stop();
      await sender?.stop();
      store.close();
    },
  };
}
