import { settingFromEnv } from "../config.ts";
import { ApiError } from "../errors.ts";
import { acceptedWhole, mediaType, readSubmission } from "../http/body.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { requestOrigin } from "../http/origin.ts";
import { domainAllowed } from "../lib/domains.ts";
import { thanksFragment, thanksPage, VISITOR_PAGE_CSP } from "../http/pages.ts";
import { errorResponse, html, json, noContent, wantsJson } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import type { FormRow } from "../db/schema.ts";
import { domainsOf } from "../services/forms.ts";
import { pageOf } from "../services/form-page.ts";
import { RefusedPost } from "../services/submissions/visitor-errors.ts";
import { messagesFor, pickLanguage } from "../lib/i18n/index.ts";
import { refusedOnPage } from "./form-page/view.ts";

/** The success message of a post: the form page's thank-you text when it has one, else the catalog's. */
function successMessage(form: FormRow, language: string): string {
  const page = pageOf(form);
  return (page.enabled && page.thankYouMessage) || messagesFor(language).thanksMessage();
}

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
  const fields = await readFields(ctx, form);
  // Nothing is stored that the HTTP layer will not let us answer (docs/api.md, "Requests that Bun refuses").
  await acceptedWhole(ctx.request);
  return fields;
}

async function readFields(ctx: RequestContext, form: FormRow): Promise<Record<string, unknown>> {
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
        gone: () => request.signal.aborted,
        idempotencyKey: request.headers.get("idempotency-key"),
        acceptLanguage: request.headers.get("accept-language"),
      },
      { rateLimit: (key) => ctx.options.rateLimiter.take(key), captcha: ctx.options.captcha },
    );
    if (!accepted.replayed) ctx.options.metrics?.submission(accepted.spamReason !== null);
    // A repeat says it is one (Stripe's header), so that a client can tell a replayed answer from a new one.
    const cors = { ...corsHeaders(request, form), ...(accepted.replayed ? { "Idempotent-Replayed": "true" } : {}) };
    // A form that takes a payment sends the visitor to pay first (docs/api.md, "Payments"); Stripe brings them back.
    const next = accepted.paymentUrl ?? accepted.location;
    if (fromHtmx(request)) {
      const redirect: Record<string, string> = accepted.paymentUrl || accepted.redirected ? { "HX-Redirect": next } : {};
      return html(200, thanksFragment(successMessage(form!, accepted.language)), { ...cors, ...redirect });
    }
    if (wantsJson(request)) {
      const paying = accepted.paymentUrl ? { paymentUrl: accepted.paymentUrl } : {};
      return json(200, { success: true, message: successMessage(form!, accepted.language), id: accepted.submissionId, next, ...paying }, cors);
    }
    return new Response(null, { status: 303, headers: { Location: next, ...cors } });
  } catch (error) {
    // A post from the form's own page comes back as that page, each error beside its field.
    const answer =
      refusedOnPage(ctx, form, error) ??
      errorResponse(error, {
        html: !wantsJson(request) && !fromHtmx(request),
        fragment: fromHtmx(request),
        referer: request.headers.get("referer"),
        language: error instanceof RefusedPost ? error.language : pickLanguage({ acceptLanguage: request.headers.get("accept-language") }),
        onInternal: (e) => ctx.options.log.error("submission failed", e),
      });
    // Stripe's refusal is the operator's to read (never the visitor's): the post itself is stored.
    if (error instanceof ApiError && error.code === "payment_unavailable") {
      let cause: unknown = error;
      while (cause instanceof ApiError && cause.cause) cause = cause.cause;
      ctx.options.log.error("payment page not made", cause);
    }
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

/** The default thank-you page beside the public endpoint (whose operations src/api/public.ts declares), in the visitor's language. */
export function submitRoutes(router: Router<Handler>): void {
  router.on("GET", "/thanks", async (ctx) => {
    const language = pickLanguage({ field: ctx.url.searchParams.get("_language"), acceptLanguage: ctx.request.headers.get("accept-language") });
    return html(200, thanksPage(ctx.request.headers.get("referer"), language), {
      ...thanksCors(ctx.request),
      "Content-Security-Policy": VISITOR_PAGE_CSP,
      Vary: "Accept-Language",
    });
  });
  router.on("OPTIONS", "/thanks", async (ctx) =>
    noContent({
      ...thanksCors(ctx.request),
      "Access-Control-Allow-Methods": "GET, OPTIONS",
      "Access-Control-Allow-Headers": ctx.request.headers.get("access-control-request-headers") ?? ALLOWED_HEADERS,
      "Access-Control-Max-Age": "86400",
    }),
  );
}
