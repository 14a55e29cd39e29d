import { authorize } from "../http/auth.ts";
import { readJson } from "../http/body.ts";
import type { Handler } from "../http/context.ts";
import { json, noContent } from "../http/respond.ts";
import type { Router } from "../http/router.ts";

/** /api/keys: list, create and revoke keys of the key's own account and mode (admin only). */
export function keyRoutes(router: Router<Handler>): void {
  router
    .on("GET", "/api/keys", async (ctx) => {
      const principal = await authorize(ctx, "admin");
      return json(200, { keys: await ctx.services.keys.list(principal) });
    })
    .on("POST", "/api/keys", async (ctx) => {
      const principal = await authorize(ctx, "admin");
      const created = await ctx.services.keys.create(principal, await readJson(ctx.request, ctx.options.maxBody));
      return json(201, created, { "Cache-Control": "no-store" });
    })
    .on("DELETE", "/api/keys/:keyId", async (ctx) => {
      const principal = await authorize(ctx, "admin");
      await ctx.services.keys.revoke(principal, ctx.params.keyId!);
      return noContent();
    });
}
