import { ApiError } from "../errors.ts";
import { mediaType, readSubmission } from "../http/body.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import { domainAllowed, requestOrigin } from "../http/origin.ts";
import { endpointPage, thanksPage } from "../http/pages.ts";
import { errorResponse, html, json, noContent, wantsJson } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import { isHttpUrl } from "../lib/validate.ts";
import type { FormRow } from "../db/schema.ts";
import type { CaptchaProvider, SpamReason } from "../domain/types.ts";
import { domainsOf } from "../services/forms.ts";
import { CAPTCHA_TOKEN_FIELDS, defaultCaptchaOptions, verifyCaptcha } from "../services/captcha.ts";

/** Fields that steer the submission and are never stored. */
export const SPECIAL_FIELDS = ["_next", "_subject", "_replyto", "_gotcha", "g-recaptcha-response", "h-captcha-response", "cf-turnstile-response"];

const SUCCESS_MESSAGE = "Thank you! Your submission has been received.";

/** CORS headers for a public answer: the caller's origin when the form accepts it (any, when it has no allowedDomains). */
function corsHeaders(request: Request, form: FormRow | null): Record<string, string> {
  const origin = request.headers.get("origin");
  if (!origin) return {};
  const domains = form ? domainsOf(form) : [];
  if (domains.length > 0 && !domainAllowed(domains, origin)) return { Vary: "Origin" };
  // Retry-After is exposed so that a fetch() caller can read when to try again after a 429.
  return { "Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": "Retry-After", Vary: "Origin" };
}

/** Form exists (404), is active (403), and the page it was posted from may use it (403). */
function checkForm(ctx: RequestContext, form: FormRow | null): asserts form is FormRow {
  if (!form) throw new ApiError("form_not_found", "This form does not exist. Check the form's action address.");
  if (!form.isActive) throw new ApiError("form_inactive", "This form is not accepting submissions right now.");
  const domains = domainsOf(form);
  if (domains.length > 0 && !domainAllowed(domains, requestOrigin(ctx.request))) {
    throw new ApiError("origin_not_allowed", "This form does not accept submissions from this website.");
  }
}

/** An address fit for a Location header (isHttpUrl refuses the control characters a header cannot carry), or null. */
function redirectAddress(value: string): string | null {
  return isHttpUrl(value) ? new URL(value).href : null;
}

/** Where a browser goes after its submission: `_next`, else the form's redirectUrl, else the thank-you page. */
function redirectTarget(ctx: RequestContext, form: FormRow, next: unknown): string {
  if (next !== undefined && next !== "") {
    const address = typeof next === "string" ? redirectAddress(next) : null;
    if (!address) {
      throw new ApiError("invalid_redirect", "_next must be an absolute http(s) address such as https://example.com/thanks.", { field: "_next" });
    }
    const domains = domainsOf(form);
    if (domains.length > 0 && !domainAllowed(domains, address)) {
      throw new ApiError("invalid_redirect", "_next must point to one of the form's allowed domains.", { field: "_next" });
    }
    return address;
  }
  return (form.redirectUrl && redirectAddress(form.redirectUrl)) || `${ctx.services.urls.baseUrl()}/thanks`;
}

/** Most fields one submission may have, and the longest field name: no form needs more. */
export const MAX_FIELDS = 200;
export const MAX_FIELD_NAME = 200;

/**
 * Every field name joins the form's field list (and a CSV column): without a bound, one post of thousands of
 * made-up names would swell the form for good and slow every submission after it.
 */
function checkFieldNames(data: Record<string, unknown>): void {
  const names = Object.keys(data);
  if (names.length > MAX_FIELDS) {
    throw new ApiError("invalid_body", `A submission may have at most ${MAX_FIELDS} fields; this one has ${names.length}.`);
  }
  const long = names.find((name) => name.length > MAX_FIELD_NAME);
  if (long !== undefined) {
    throw new ApiError("invalid_body", `Field names may be at most ${MAX_FIELD_NAME} characters long.`, { field: long.slice(0, 40) });
  }
}

/** 10 MiB: the largest file a post may carry when the server is not told otherwise (--max-file-size). */
export const DEFAULT_MAX_FILE_SIZE = 10 * 1024 * 1024;

/** The post's fields: multipart is read as a stream, its files kept in their fields' places (§11). */
async function readPost(ctx: RequestContext, form: FormRow): Promise<Record<string, unknown>> {
  if (mediaType(ctx.request) !== "multipart/form-data") return readSubmission(ctx.request, ctx.options.maxBody);
  // The streaming multipart parser (and Node's streams under it) loads with the first multipart post.
  const { MAX_FILES, readMultipart } = await import("../http/multipart.ts");
  return readMultipart(ctx.request, {
    maxBody: ctx.options.maxBody,
    maxFileSize: ctx.options.maxFileSize ?? DEFAULT_MAX_FILE_SIZE,
    maxFiles: MAX_FILES,
    filesAccepted: form.fileUploads,
  });
}

/**
 * Checks the form's captcha, if it has one: a missing or refused token is `400 captcha_failed`; a provider that
 * cannot be asked makes the submission spam (`captcha_unverified`), kept and answered as a success, so that
 * an outage loses nothing. Null when the captcha passed or the form has none.
 */
async function checkCaptcha(ctx: RequestContext, form: FormRow, special: Record<string, unknown>): Promise<SpamReason | null> {
  if (!form.captchaProvider || !form.captchaSecret) return null;
  const provider = form.captchaProvider as CaptchaProvider;
  const token = special[CAPTCHA_TOKEN_FIELDS[provider]];
  const refused = new ApiError("captcha_failed", "The captcha was not solved. Go back, complete the captcha and send the form again.", {
    field: CAPTCHA_TOKEN_FIELDS[provider],
  });
  if (typeof token !== "string" || token.trim() === "" || token.length > 4096) throw refused;
  const verdict = await verifyCaptcha(provider, form.captchaSecret, token, ctx.ip, ctx.options.captcha ?? defaultCaptchaOptions);
  if (verdict === "refused") throw refused;
  return verdict === "unverified" ? "captcha_unverified" : null;
}

const filled = (value: unknown) => value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.every((v) => v === ""));

/** A public post to a form: the answer is JSON for fetch(), a redirect or an HTML page for a browser. */
export async function submit(ctx: RequestContext): Promise<Response> {
  const { request } = ctx;
  let form: FormRow | null = null;
  try {
    // Looked up before any check, so that every answer, errors included, carries the CORS headers this form allows.
    form = await ctx.services.forms.findBySlug(ctx.params.slug!);
    checkForm(ctx, form);
    const retryAfter = ctx.options.rateLimiter.take(`${form.id}|${ctx.ip}`);
    if (retryAfter > 0) {
      throw new ApiError("rate_limited", `Too many submissions from your address; try again in ${retryAfter} seconds.`, {
        headers: { "Retry-After": String(retryAfter) },
      });
    }
    const fields = await readPost(ctx, form);
    // No prototype: a field named __proto__ is data to keep, not an object's prototype to set.
    const special: Record<string, unknown> = Object.create(null);
    const data: Record<string, unknown> = Object.create(null);
    for (const [name, value] of Object.entries(fields)) {
      if (SPECIAL_FIELDS.includes(name)) special[name] = value;
      else data[name] = value;
    }
    // A filled honeypot is answered exactly like a success, so a bot learns nothing (not even from a post
    // that holds nothing else); the owner finds it under spam.
    const honeypot = filled(special._gotcha);
    if (!honeypot && Object.keys(data).length === 0) throw new ApiError("empty_submission", "The submission has no fields to store.");
    checkFieldNames(data);
    // _next is checked whoever asks, so that a bad one is found on the first fetch() test, not in a browser later.
    const location = redirectTarget(ctx, form, special._next);
    // A honeypot catch is spam whatever its captcha says: the provider is not asked about it.
    const spamReason: SpamReason | null = honeypot ? "honeypot" : await checkCaptcha(ctx, form, special);
    const stored = await ctx.services.submissions.receive(form, data, {
      isSpam: spamReason !== null,
      spamReason: spamReason ?? undefined,
      notification: { subject: special._subject, replyTo: special._replyto },
    });
    ctx.options.metrics?.submission(spamReason !== null);
    const cors = corsHeaders(request, form);
    if (wantsJson(request)) return json(200, { success: true, message: SUCCESS_MESSAGE, id: stored.id }, cors);
    return new Response(null, { status: 303, headers: { Location: location, ...cors } });
  } catch (error) {
    const answer = errorResponse(error, {
      html: !wantsJson(request),
      referer: request.headers.get("referer"),
      onInternal: (e) => ctx.options.log.error("submission failed", e),
    });
    for (const [name, value] of Object.entries(corsHeaders(request, form))) answer.headers.set(name, value);
    return answer;
  }
}

/** The CORS preflight of a `fetch()` post: allowed for an origin the form accepts. */
export async function preflight(ctx: RequestContext): Promise<Response> {
  const form = await ctx.services.forms.findBySlug(ctx.params.slug!);
  const cors = corsHeaders(ctx.request, form);
  // Without an Origin it is no CORS preflight: there is nothing to allow or refuse.
  if (ctx.request.headers.has("origin") && !cors["Access-Control-Allow-Origin"]) {
    throw new ApiError("origin_not_allowed", "This form does not accept submissions from this website.", { headers: cors });
  }
  return noContent({
    ...cors,
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": ctx.request.headers.get("access-control-request-headers") ?? "Content-Type, Accept",
    "Access-Control-Max-Age": "86400",
  });
}

/** The pages beside the public endpoint (whose operations src/api/public.ts declares): /f/{slug} in a browser, and the default thank-you page. */
export function submitRoutes(router: Router<Handler>): void {
  // A person who opens the form's address in a browser gets a page that says what it is, not a JSON 405.
  router.on("GET", "/f/:slug", async () => html(405, endpointPage(), { Allow: "POST, OPTIONS" }));
  router.on("GET", "/thanks", async (ctx) => html(200, thanksPage(ctx.request.headers.get("referer"))));
}
