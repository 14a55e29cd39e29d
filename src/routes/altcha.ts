import { ApiError } from "../errors.ts";
import type { RequestContext } from "../http/context.ts";
import { json } from "../http/respond.ts";
import { corsHeaders } from "./submit.ts";
// The widget's script, inside the binary: a page that uses the captcha needs no CDN. The package's exports do
// not name its minified file, hence the path; TypeScript has no type for a script imported as text.
// @ts-expect-error
import widget from "../../node_modules/altcha/dist/main/altcha.min.js" with { type: "text" };

/** A new ALTCHA challenge for a form, with the CORS headers its origins allow; 404 when it has no ALTCHA captcha. */
export async function altchaChallenge(ctx: RequestContext): Promise<Response> {
  const form = await ctx.services.forms.findBySlug(ctx.params.slug!);
  const headers = corsHeaders(ctx.request, form);
  if (!form) throw new ApiError("form_not_found", "This form does not exist. Check the form's challenge address.", { headers });
  if (form.captchaProvider !== "altcha") {
    throw new ApiError("not_found", 'This form does not use the ALTCHA captcha; set captcha {provider: "altcha"} on it first.', { headers });
  }
  // A bucket of its own beside the posts' (a visitor asks for about one challenge a post), so that a script
  // cannot make the server sign challenges without end.
  const retryAfter = ctx.options.rateLimiter.take(`altcha|${form.id}|${ctx.ip}`);
  if (retryAfter > 0) {
    throw new ApiError("rate_limited", `Too many challenges from your address; try again in ${retryAfter} seconds.`, {
      headers: { ...headers, "Retry-After": String(retryAfter) },
    });
  }
  return json(200, await ctx.services.spam.altcha.challenge(form), { ...headers, "Cache-Control": "no-store" });
}

/** The widget's script: CORS open, cached for a day. */
export async function altchaWidget(): Promise<Response> {
  return new Response(widget, {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Access-Control-Allow-Origin": "*",
      "Cache-Control": "public, max-age=86400",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
