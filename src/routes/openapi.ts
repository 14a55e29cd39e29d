import { answerBaseUrl } from "../services/urls.ts";
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";

/**
 * GET /api/openapi.json (no key: it describes the API, it holds nothing of anyone's) and the reference page at
 * /docs. Both load their modules on first request: the document is built from every zod schema of the API and
 * the page carries Swagger UI, and neither should cost a start of a server that may never be asked for them.
 */
export function openapiRoutes(router: Router<Handler>): void {
  let document: Promise<string> | null = null;
  router.on("GET", "/api/openapi.json", async (ctx) => {
    document ??= import("../openapi/document.ts").then(async (module) =>
      JSON.stringify(await module.buildDocument({ serverUrl: answerBaseUrl(ctx.services.urls) })),
    );
    // A failed build is tried again on the next request rather than cached as a failure.
    const text = await document.catch((error: unknown) => {
      document = null;
      throw error;
    });
    return new Response(text, {
      headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-cache", "access-control-allow-origin": "*" },
    });
  });
  const page: Handler = async (ctx) => (await import("../openapi/docs-page.ts")).docsResponse(ctx.params.asset ?? null, ctx.request);
  router.on("GET", "/docs", page).on("GET", "/docs/:asset", page);
}
