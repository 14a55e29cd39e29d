import { ApiError, unavailableError } from "./errors.ts";
import { forwardedOrigin, withPublicOrigin } from "./http/forwarded.ts";
import type { AccessEntry, AppOptions, Handler, RequestContext } from "./http/context.ts";
import { metricsResponse } from "./http/metrics.ts";
import { accessLine } from "./log.ts";
import { errorResponse, html, json } from "./http/respond.ts";
import { requestIdOf, withRequestId } from "./http/request-id.ts";
import { Router } from "./http/router.ts";
import { OPERATIONS } from "./api/index.ts";
import { routeOperations, type Operation } from "./api/operation.ts";
import { agentRoutes } from "./routes/agents.ts";
import { confirmRoutes } from "./routes/confirm.ts";
import { openapiRoutes } from "./routes/openapi.ts";
import { submitRoutes } from "./routes/submit.ts";

/** How the server tells the app about the connection: the socket's address. */
export interface ConnectionInfo {
  ip?: string;
}

const HOME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>formsvc</title></head>
<body><h1>formsvc</h1><p>This server takes form submissions at <code>/f/{slug}</code> serves its API at <code>/api</code> and the owner's dashboard at <a href="/dashboard">/dashboard</a>.</p></body></html>`;

function clientIp(request: Request, info: ConnectionInfo, trustProxy: boolean): string {
  if (trustProxy) {
    // The right-most address is the one our proxy appended; the ones before it are the client's own claims.
    const forwarded = request.headers
      .get("x-forwarded-for")
      ?.split(",")
      .map((a) => a.trim())
      .filter(Boolean);
    const last = forwarded?.[forwarded.length - 1];
    if (last) return last;
  }
  return info.ip ?? "unknown";
}

const MAX_LOGGED_AGENT = 256;

/**
 * The request's address. An HTTP/1.0 request without a Host header (what HAProxy's default health check sends)
 * reaches us with no host in it: it is read against the server's own base URL rather than failing.
 */
function requestUrl(request: Request, baseUrl: string): URL {
  if (URL.canParse(request.url)) {
    const url = new URL(request.url);
    if (url.host !== "") return url;
    return new URL(`${url.pathname}${url.search}`, baseUrl);
  }
  return new URL(request.url.startsWith("/") ? request.url : `/${request.url}`, baseUrl);
}

/** The methods of HTTP that formsvc knows; any other is 501, not 405 (RFC 9110 §15.6.2). */
const KNOWN_METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** The whole HTTP app as one fetch function; nothing here binds a port. `operations`: the API's (a test may add one). */
export function createApp(options: AppOptions, operations: readonly Operation[] = OPERATIONS) {
  const router = new Router<Handler>();
  routeOperations(router, operations);
  submitRoutes(router);
  confirmRoutes(router);
  openapiRoutes(router);
  router.on("GET", "/", async () => html(200, HOME));
  // Healthy only when the database answers a read: a process that is up on a dead disk is not healthy.
  router.on("GET", "/healthz", async (ctx) => {
    try {
      await ctx.services.store.ping();
    } catch (error) {
      ctx.options.log.error("health check: the database does not answer", error);
      throw unavailableError();
    }
    return json(200, { status: "ok" });
  });
  agentRoutes(router, (request, ip) => app.fetch(request, { ip }));
  const metrics = options.metrics;
  if (metrics && options.serveMetrics) router.on("GET", "/metrics", async () => metricsResponse(metrics));

  // The dashboard (its pages, JSX runtime and assets) is loaded by its first request, not by every start of
  // a server that may only ever take submissions.
  let dashboard: Promise<ReturnType<typeof import("./dashboard/index.tsx").createDashboard>> | null = null;
  const ownsDashboard = (path: string) => path === "/dashboard" || path.startsWith("/dashboard/");

  async function handle(request: Request, url: URL, ip: string, requestId: string, matched: { route: string }): Promise<Response> {
    // The request's own options: every error line logged while answering it names its id.
    const log = { ...options.log, error: (message: string, error: unknown) => options.log.error(message, error, requestId) };
    const requestOptions: AppOptions = { ...options, log };
    try {
      // Every browser asks for it on every page: no icon, said once a week, rather than a 404 in the console.
      if (url.pathname === "/favicon.ico" && (request.method === "GET" || request.method === "HEAD")) {
        matched.route = "/favicon.ico";
        return new Response(null, { status: 204, headers: { "cache-control": "public, max-age=604800" } });
      }
      if (ownsDashboard(url.pathname)) {
        matched.route = "/dashboard";
        dashboard ??= import("./dashboard/index.tsx").then((module) => module.createDashboard());
        return await (await dashboard).handle({ request, url, params: {}, ip, services: options.services, options: requestOptions });
      }
      if (!KNOWN_METHODS.has(request.method)) {
        throw new ApiError("not_implemented", `The method ${request.method.slice(0, 20)} is not one this server implements.`);
      }
      const { handler, params, route } = router.match(request.method, url.pathname);
      matched.route = route;
      const ctx: RequestContext = { request, url, params, ip, services: options.services, options: requestOptions };
      return await handler(ctx);
    } catch (error) {
      return errorResponse(error, { onInternal: (e) => log.error(`${request.method} ${url.pathname} failed`, e) });
    }
  }

  const app = {
    /** Every route the app answers (`GET /api/forms/:id`), so that a test can check each one is covered. */
    routes: () => router.list(),
    /** Answers one request; logs one line for it (method, path, status, milliseconds, client, request id), never its key, query or body. */
    async fetch(request: Request, info: ConnectionInfo = {}): Promise<Response> {
      const started = performance.now();
      const url = requestUrl(request, options.services.urls.baseUrl());
      const ip = clientIp(request, info, options.trustProxy);
      // Counted by route pattern, so that made-up paths cannot swell the metrics: every unknown path is one series.
      const matched = { route: "unmatched" };
      const requestId = requestIdOf(request, options.trustProxy);
      // Behind a trusted proxy the request is seen at the address the client used: links, cookies and the
      // dashboard's Origin check follow it.
      const forwarded = options.trustProxy ? forwardedOrigin(request.headers) : null;
      if (forwarded) {
        const outside = new URL(forwarded);
        url.protocol = outside.protocol;
        url.host = outside.host;
        // Setting host without a port keeps the old one: the forwarded origin's own port (or none) is the one.
        url.port = outside.port;
      }
      const answer = () => handle(request, url, ip, requestId, matched);
      const response = await withRequestId(forwarded ? await withPublicOrigin(forwarded, answer) : await answer(), requestId);
      const ms = performance.now() - started;
      // The user agent is the client's text: cut short, so that no client can make one log line take kilobytes.
      const userAgent = request.headers.get("user-agent")?.slice(0, MAX_LOGGED_AGENT) ?? null;
      const entry: AccessEntry = { method: request.method, path: url.pathname, status: response.status, ms, ip, userAgent, requestId };
      if (options.log.access) options.log.access(entry);
      else options.log.request(accessLine(entry));
      metrics?.request(request.method, matched.route, response.status, ms / 1000);
      return response;
    },
  };
  return app;
}

export type App = ReturnType<typeof createApp>;
