import { ApiError } from "../errors.ts";
import type { Handler } from "../http/context.ts";
import { json } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import type { FormRow } from "../db/schema.ts";
// The widget's script, inside the binary: a page that uses the captcha needs no CDN. The package's exports do
// not name its minified file, hence the path; TypeScript has no type for a script imported as text.
// @ts-expect-error
import widget from "../../node_modules/altcha/dist/main/altcha.min.js" with { type: "text" };

/**
 * The ALTCHA captcha's public routes: a new challenge for a form (CORS as the form's origins) and the widget's
 * script (CORS open, cached for a day).
 */
export function altchaRoutes(router: Router<Handler>, cors: (request: Request, form: FormRow | null) => Record<string, string>): void {
  const challenge: Handler = async (ctx) => {
    const form = await ctx.services.forms.findBySlug(ctx.params.slug!);
    const headers = cors(ctx.request, form);
    if (!form) throw new ApiError("form_not_found", "This form does not exist. Check the form's challenge address.", { headers });
    if (form.captchaProvider !== "altcha") {
      throw new ApiError("not_found", 'This form does not use the ALTCHA captcha; set captcha {provider: "altcha"} on it first.', { headers });
    }
    return json(200, await ctx.services.spam.altcha.challenge(form), { ...headers, "Cache-Control": "no-store" });
  };
  router.on("GET", "/f/:slug/altcha", challenge).on("GET", "/api/f/:slug/altcha", challenge);
  router.on(
    "GET",
    "/altcha.js",
    async () =>
      new Response(widget, {
        headers: {
          "Content-Type": "text/javascript; charset=utf-8",
          "Access-Control-Allow-Origin": "*",
          "Cache-Control": "public, max-age=86400",
          "X-Content-Type-Options": "nosniff",
        },
      }),
  );
}
