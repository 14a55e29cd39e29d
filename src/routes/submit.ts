import { settingFromEnv } from "../config.ts";
import { ApiError } from "../errors.ts";
import { mediaType, readSubmission } from "../http/body.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { requestOrigin } from "../http/origin.ts";
import { domainAllowed } from "../lib/domains.ts";
import { endpointPage, thanksFragment, thanksPage } from "../http/pages.ts";
import { errorResponse, html, json, noContent, wantsJson } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import type { FormRow } from "../db/schema.ts";
import { domainsOf } from "../services/forms.ts";

const SUCCESS_MESSAGE = "Thank you! Your submission has been received.";

/** CORS headers for a public answer: the caller's origin when the form accepts it (any, when it has no allowedDomains). */
export function corsHeaders(request: Request, form: FormRow | null): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin) return {};
  const domains = form ? domainsOf(form) : [];
  if (domains.length > 0 && !domainAllowed(domains, origin)) return { Vary: "Origin" };
  // Retry-After is exposed so that a fetch() caller can read when to try again after a 429, HX-Redirect so that
  // htmx can follow it from another origin.
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED, Vary: "Origin" };
}

const EXPOSED = "Retry-After, HX-Redirect, Idempotent-Replayed";
/** What a preflight allows when it does not say what it will send: the headers fetch() and htmx send. */
const ALLOWED_HEADERS = "Content-Type, Accept, Idempotency-Key, HX-Request, HX-Current-URL, HX-Target, HX-Trigger, HX-Trigger-Name, HX-Boosted, HX-Prompt";

/** True for a post made by htmx, which swaps the answer into the page instead of following it. */
const fromHtmx = (request: Request) => request.headers.get("hx-request") === "true";

/** The post's fields: multipart is read as a stream, its files kept in their fields' places (docs/api.md, "Files"). */
async function readPost(ctx: RequestContext, form: FormRow): Promise<Record<string, unknown>> {
  if (mediaType(ctx.request) !== "multipart/form-data") return readSubmission(ctx.request, ctx.options.maxBody);
  // The streaming multipart parser (and Node's streams under it) loads with the first multipart post.
  const { MAX_FILES, readMultipart } = await import("../http/multipart.ts");
  return readMultipart(ctx.request, {
    maxBody: ctx.options.maxBody,
    maxFileSize: ctx.options.maxFileSize ?? settingFromEnv("maxFileSize"),
    maxFiles: MAX_FILES,
    filesAccepted: form.fileUploads,
  });
}

/** A public post to a form: the intake applies its rules; the answer is JSON for fetch(), a fragment for htmx, a redirect or an HTML page for a browser. */
export async function submit(ctx: RequestContext): Promise<Response> {
  const { request } = ctx;
  let form: FormRow | null = null;
  try {
    // Looked up before any check, so that every answer, errors included, carries the CORS headers this form allows.
    form = await ctx.services.intake.findForm(ctx.params.slug!);
    const accepted = await ctx.services.intake.receive(
      form,
      {
        origin: requestOrigin(request),
        ip: ctx.ip,
        readFields: (found) => readPost(ctx, found),
        idempotencyKey: request.headers.get("idempotency-key"),
      },
      { rateLimit: (key) => ctx.options.rateLimiter.take(key), captcha: ctx.options.captcha },
    );
    if (!accepted.replayed) ctx.options.metrics?.submission(accepted.spamReason !== null);
    // A repeat says it is one (Stripe's header), so that a client can tell a replayed answer from a new one.
    const cors = { ...corsHeaders(request, form), ...(accepted.replayed ? { "Idempotent-Replayed": "true" } : {}) };
    if (fromHtmx(request)) {
      const redirect: Record<string, string> = accepted.redirected ? { "HX-Redirect": accepted.location } : {};
      return html(200, thanksFragment(SUCCESS_MESSAGE), { ...cors, ...redirect });
    }
    if (wantsJson(request)) return json(200, { success: true, message: SUCCESS_MESSAGE, id: accepted.submissionId, next: accepted.location }, cors);
    return new Response(null, { status: 303, headers: { Location: accepted.location, ...cors } });
  } catch (error) {
    const answer = errorResponse(error, {
      html: !wantsJson(request) && !fromHtmx(request),
      fragment: fromHtmx(request),
      referer: request.headers.get("referer"),
      onInternal: (e) => ctx.options.log.error("submission failed", e),
    });
    for (const [name, value] of Object.entries(corsHeaders(request, form))) answer.headers.set(name, value);
    return answer;
  }
}

/** The CORS preflight of a `fetch()` post: allowed for an origin the form accepts. */
export async function preflight(ctx: RequestContext): Promise<Response> {
  const form = await ctx.services.intake.findForm(ctx.params.slug!);
  const cors = corsHeaders(ctx.request, form);
  // Without an Origin it is no CORS preflight: there is nothing to allow or refuse.
  if (ctx.request.headers.has("origin") && !cors["Access-Control-Allow-Origin"]) {
    throw new ApiError("origin_not_allowed", "This form does not accept submissions from this website.", { headers: cors });
  }
  return noContent({
    ...cors,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": ctx.request.headers.get("access-control-request-headers") ?? ALLOWED_HEADERS,
    "Access-Control-Max-Age": "86400",
  });
}

/**
 * CORS of the default thank-you page, which a browser reaches by following a post's 303: open to every origin,
 * since it holds nothing of any form (the form's own origins govern the post itself).
 */
function thanksCors(request: Request): Record<string, string> {
  const origin = request.headers.get("origin");
  return origin ? { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": EXPOSED, Vary: "Origin" } : {};
}

/** The pages beside the public endpoint (whose operations src/api/public.ts declares): /f/{slug} in a browser, and the default thank-you page. */
export function submitRoutes(router: Router<Handler>): void {
  // A person who opens the form's address in a browser gets a page that says what it is, not a JSON 405.
  router.on("GET", "/f/:slug", async () => html(405, endpointPage(), { Allow: "POST, OPTIONS" }));
  router.on("GET", "/thanks", async (ctx) => html(200, thanksPage(ctx.request.headers.get("referer")), thanksCors(ctx.request)));
  router.on("OPTIONS", "/thanks", async (ctx) =>
    noContent({
      ...thanksCors(ctx.request),
      "Access-Control-Allow-Methods": "GET, OPTIONS",
      "Access-Control-Allow-Headers": ctx.request.headers.get("access-control-request-headers") ?? ALLOWED_HEADERS,
      "Access-Control-Max-Age": "86400",
    }),
  );
}
