// The form's page at GET /f/{slug}, its thank-you page, its embed, and the script both use (docs/api.md, "The
// form's page"); src/api/form-page.ts declares them. The page shows only for a form whose page is enabled and that declares its fields; any other
// form's address answers as before, that it takes posts.
import type { Form } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import type { RequestContext } from "../../http/context.ts";
import { endpointPage, thanksPage } from "../../http/pages.ts";
import { html, json, wantsJson } from "../../http/respond.ts";
import { hostOf } from "../../lib/domains.ts";
import { corsHeaders } from "../submit.ts";
import script from "./client.js" with { type: "text" };
import { formHtml, formPageHtml, formStyles, formThanksHtml, type PageErrors } from "./render.ts";
import { hasPage, languageOf, pageHeaders, viewOf } from "./view.ts";

/** Counts the view; a failure to count is logged and the visitor still gets the page. */
async function countView(ctx: RequestContext, form: Form): Promise<void> {
  try {
    await ctx.services.pageViews.count(form.id, { ip: ctx.ip });
  } catch (error) {
    ctx.options.log.error("a view of a form's page was not counted", error);
  }
}

const notAPage = () => html(405, endpointPage(), { Allow: "POST, OPTIONS" });

/** What a client that asks for JSON gets at a form's address: the API's error, saying what the address is for. */
function notForJson(found: boolean): never {
  if (!found) throw new ApiError("form_not_found", "This form does not exist. Check the slug in the address.");
  throw new ApiError("method_not_allowed", "This is a form's submission address: POST a submission here. Its page, when it has one, is for a browser.", {
    headers: { Allow: "POST, OPTIONS" },
  });
}

/** GET /f/{slug}: the form's page for a browser; the submission address's own page otherwise (a JSON error for a JSON client). */
export async function formPage(ctx: RequestContext): Promise<Response> {
  const row = await ctx.services.forms.findBySlug(ctx.params.slug!);
  if (wantsJson(ctx.request)) notForJson(row !== null);
  const form = row ? ctx.services.forms.toForm(row) : null;
  if (!form || !hasPage(form)) return notAPage();
  const view = viewOf(ctx, form, languageOf(ctx, form), `/f/${form.slug}`);
  await countView(ctx, form);
  const errors: PageErrors | undefined = form.isActive ? undefined : { byField: new Map(), general: [view.t.formInactive()] };
  return html(200, formPageHtml({ ...view, errors }), pageHeaders(view));
}

/** GET /f/{slug}/thanks: the form's own thank-you page (formsvc's plain one for a form without a page). */
export async function formThanks(ctx: RequestContext): Promise<Response> {
  const row = await ctx.services.forms.findBySlug(ctx.params.slug!);
  const form = row ? ctx.services.forms.toForm(row) : null;
  const language = languageOf(ctx, form);
  if (!form || !hasPage(form)) return html(200, thanksPage(null, language));
  const view = viewOf(ctx, form, language, `/f/${form.slug}`);
  return html(200, formThanksHtml(view), pageHeaders(view));
}

/** GET /f/{slug}/embed: what /embed.js puts in a site's page: the form's markup, its styles and the captcha's scripts. */
export async function embed(ctx: RequestContext): Promise<Response> {
  const row = await ctx.services.forms.findBySlug(ctx.params.slug!);
  const headers: Record<string, string> = { ...corsHeaders(ctx.request, row), "Cache-Control": "no-store", Vary: "Origin, Accept-Language" };
  if (!row) throw new ApiError("form_not_found", "This form does not exist. Check the slug in data-formsvc.", { headers });
  const origin = ctx.request.headers.get("origin");
  if (origin && !headers["Access-Control-Allow-Origin"]) {
    // The refusal itself is readable by the site, so that its owner reads why rather than "Failed to fetch".
    const host = hostOf(origin)?.host ?? origin;
    throw new ApiError("origin_not_allowed", `This form does not accept submissions from this website: add ${host} to the form's allowedDomains.`, {
      headers: { ...headers, "Access-Control-Allow-Origin": origin },
    });
  }
  const form = ctx.services.forms.toForm(row);
  if (!hasPage(form)) {
    throw new ApiError("not_found", "This form has no page to embed: declare its fields and turn its page on (page.enabled).", { headers });
  }
  const view = viewOf(ctx, form, languageOf(ctx, form), form.submitUrl);
  await countView(ctx, form);
  const body = { language: view.language, html: formHtml(view, "h2"), css: formStyles(form), scripts: view.widget?.scripts ?? [] };
  return json(200, body, headers);
}

/** The script of the page and the embed: any site may load it. */
export async function clientScript(): Promise<Response> {
  return new Response(script, {
    headers: {
      "Content-Type": "text/javascript; charset=utf-8",
      "Access-Control-Allow-Origin": "*",
      "Cache-Control": "public, max-age=3600",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
