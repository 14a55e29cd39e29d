/** @jsxImportSource hono/jsx */
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { action } from "./guard.tsx";
import { ownForm, redirect } from "./http.ts";
import { fieldsErrors, fieldsFromPost, fieldsPatch } from "./pages/fields-section.tsx";
import { sectionHref } from "./pages/settings.tsx";
import { settingsResponse } from "./settings-routes.tsx";

/**
 * The fields section of a form's settings: "Add another field" shows one more blank row and saves nothing;
 * "Save fields" hands the rows to the forms service, whose refusal is shown beside the input at fault.
 * Registered before the other sections' route, which would take /settings/fields as a section name.
 */
export function fieldsPageRoutes(router: Router<Handler>): void {
  router.on(
    "POST",
    "/dashboard/forms/:id/settings/fields",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const input = fieldsFromPost(body);
      if (body.get("intent") === "add") return settingsResponse(ctx, session, row, { fields: input });
      const { patch, rowOf } = fieldsPatch(input);
      try {
        await ctx.services.forms.update(principal, row.id, patch);
        return redirect(sectionHref(row.id, "fields", "saved"));
      } catch (error) {
        return settingsResponse(ctx, session, row, { status: 400, fields: input, errors: fieldsErrors(error, rowOf) });
      }
    }),
  );
}
