import type { AppOptions, Handler, RequestContext } from "./http/context.ts";
import { errorResponse, html, json } from "./http/respond.ts";
import { Router } from "./http/router.ts";
import { formRoutes } from "./routes/forms.ts";
import { keyRoutes } from "./routes/keys.ts";
import { notificationRoutes } from "./routes/notifications.ts";
import { submissionRoutes } from "./routes/submissions.ts";
import { submitRoutes } from "./routes/submit.ts";

/** How the server tells the app about the connection: the socket's address. */
export interface ConnectionInfo {
  ip?: string;
}

const HOME = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>formsvc</title></head>
<body><h1>formsvc</h1><p>This server takes form submissions at <code>/f/{slug}</code> and serves its API at <code>/api</code>.</p></body></html>`;

function clientIp(request: Request, info: ConnectionInfo, trustProxy: boolean): string {
  if (trustProxy) {
    // The right-most address is the one our proxy appended; the ones before it are the client's own claims.
    const forwarded = request.headers.get("x-forwarded-for")?.split(",").map((a) => a.trim()).filter(Boolean);
    const last = forwarded?.[forwarded.length - 1];
    if (last) return last;
  }
  return info.ip ?? "unknown";
}

/** The whole HTTP app as one fetch function; nothing here binds a port. */
export function createApp(options: AppOptions) {
  const router = new Router<Handler>();
  formRoutes(router);
  submissionRoutes(router);
  notificationRoutes(router);
  keyRoutes(router);
  submitRoutes(router);
  router.on("GET", "/", async () => html(200, HOME));
  router.on("GET", "/healthz", async () => json(200, { status: "ok" }));

  async function handle(request: Request, url: URL, info: ConnectionInfo): Promise<Response> {
    try {
      const { handler, params } = router.match(request.method, url.pathname);
      const ctx: RequestContext = { request, url, params, ip: clientIp(request, info, options.trustProxy), services: options.services, options };
      return await handler(ctx);
    } catch (error) {
      return errorResponse(error, { onInternal: (e) => options.log.error(`${request.method} ${url.pathname} failed`, e) });
    }
  }

  return {
    /** Answers one request; logs one line for it (method, path, status, milliseconds), never its key or body. */
    async fetch(request: Request, info: ConnectionInfo = {}): Promise<Response> {
      const started = performance.now();
      const url = new URL(request.url);
      const response = await handle(request, url, info);
      options.log.request(`${request.method} ${url.pathname} ${response.status} ${(performance.now() - started).toFixed(1)}ms`);
      return response;
    },
  };
}

export type App = ReturnType<typeof createApp>;
