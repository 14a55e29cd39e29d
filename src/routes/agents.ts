import type { Handler } from "../http/context.ts";
import { answerBaseUrl } from "../services/urls.ts";
import type { Router } from "../http/router.ts";

/**
 * What assistants and deploy scripts read (docs/api.md, "MCP" and "The forms file's schema"): `POST /mcp`, the
 * API's operations as MCP tools for the key in the request, each call a request to this same app (`fetch`); and
 * `GET /api/formsvc.schema.json` (no key), the schema of the forms file. Both load their modules, the MCP SDK and
 * zod, on first request: a server that is never asked pays nothing for them.
 */
export function agentRoutes(router: Router<Handler>, fetch: (request: Request, ip: string) => Promise<Response>): void {
  let mcp: Promise<typeof import("../mcp/http.ts")> | null = null;
  router.on("POST", "/mcp", async (ctx) => {
    mcp ??= import("../mcp/http.ts");
    return (await mcp).handleMcp(ctx.request, ctx.url, { services: ctx.services, maxBody: ctx.options.maxBody, fetch: (inner) => fetch(inner, ctx.ip) });
  });
  router.on("GET", "/api/formsvc.schema.json", async (ctx) => {
    const { formsFileJsonSchema } = await import("../forms-as-code/schema.ts");
    const schema = await formsFileJsonSchema(answerBaseUrl(ctx.services.urls));
    return new Response(JSON.stringify(schema), {
      headers: { "content-type": "application/schema+json; charset=utf-8", "cache-control": "no-cache", "access-control-allow-origin": "*" },
    });
  });
}
