import { authorize } from "../http/auth.ts";
import { readJson } from "../http/body.ts";
import type { Handler } from "../http/context.ts";
import { json, noContent } from "../http/respond.ts";
import type { Router } from "../http/router.ts";

/** /api/forms: list, create, get, update, delete. */
export function formRoutes(router: Router<Handler>): void {
  router
    .on("GET", "/api/forms", async (ctx) => {
      const principal = await authorize(ctx, "read");
      return json(200, { forms: await ctx.services.forms.list(principal) });
    })
    .on("POST", "/api/forms", async (ctx) => {
      const principal = await authorize(ctx, "write");
      const form = await ctx.services.forms.create(principal, await readJson(ctx.request, ctx.options.maxBody));
      return json(201, form, { Location: `${ctx.services.urls.baseUrl()}/api/forms/${form.id}` });
    })
    .on("GET", "/api/forms/:id", async (ctx) => {
      const principal = await authorize(ctx, "read");
      return json(200, await ctx.services.forms.get(principal, ctx.params.id!));
    })
    .on("PATCH", "/api/forms/:id", async (ctx) => {
      const principal = await authorize(ctx, "write");
      return json(200, await ctx.services.forms.update(principal, ctx.params.id!, await readJson(ctx.request, ctx.options.maxBody)));
    })
    .on("DELETE", "/api/forms/:id", async (ctx) => {
      const principal = await authorize(ctx, "delete");
      await ctx.services.forms.remove(principal, ctx.params.id!);
      return noContent();
    });
}
