// What the form's page, its thank-you page and its embed share: whether a form has a page, the visitor's view of
// it, the page's headers, and the page again for a post of its own that was refused.
import type { FormRow } from "../../db/schema.ts";
import type { Form } from "../../domain/types.ts";
import type { RequestContext } from "../../http/context.ts";
import { html, wantsJson } from "../../http/respond.ts";
import { messagesFor, pickLanguage } from "../../lib/i18n/index.ts";
import { RefusedPost } from "../../services/submissions/visitor-errors.ts";
import { formPageHtml, type PageErrors, type PageView } from "./render.ts";
import { captchaWidget, pagePolicy } from "./widgets.ts";

/** Whether the form has a page to show: enabled, and declaring the fields it is made from. */
export const hasPage = (form: Form) => form.page.enabled && form.fields.length > 0;

/** The visitor's language for a GET: `?_language=`, else the form's page's, else Accept-Language, else English. */
export function languageOf(ctx: RequestContext, form: Form | null): string {
  return pickLanguage({
    field: ctx.url.searchParams.get("_language"),
    form: form?.page.language,
    acceptLanguage: ctx.request.headers.get("accept-language"),
  });
}

/** A view of the form for one visitor; `action` is where it posts. */
export function viewOf(ctx: RequestContext, form: Form, language: string, action: string): PageView {
  const t = messagesFor(language);
  return { form, t, language, action, widget: captchaWidget(form, ctx.url.origin, t) };
}

/** The page's headers: its policy, and the full address as Referer of its own post (same origin only). */
export const pageHeaders = (view: PageView) => ({
  "Content-Security-Policy": pagePolicy(view.widget),
  "Referrer-Policy": "same-origin",
  "Cache-Control": "no-store",
  Vary: "Accept-Language",
});

/**
 * The answer to a post refused that came from the form's own page (its Referer is the page's address): that
 * page again, status of the error, each error beside its field and every value kept; null for any other post.
 */
export function refusedOnPage(ctx: RequestContext, row: FormRow | null, error: unknown): Response | null {
  if (!row || !(error instanceof RefusedPost) || wantsJson(ctx.request) || ctx.request.headers.has("hx-request")) return null;
  const referer = ctx.request.headers.get("referer");
  if (!referer || !URL.canParse(referer)) return null;
  const from = new URL(referer);
  if (from.origin !== ctx.url.origin || from.pathname !== `/f/${row.slug}`) return null;
  const form = ctx.services.forms.toForm(row);
  if (!hasPage(form)) return null;
  const declared = new Set(form.fields.map((rule) => rule.name));
  const errors: PageErrors = { byField: new Map(), general: [] };
  for (const item of error.items ?? [{ field: error.field, message: error.message }]) {
    if (item.field && declared.has(item.field) && !errors.byField.has(item.field)) errors.byField.set(item.field, item.message);
    else errors.general.push(item.message);
  }
  const view = viewOf(ctx, form, error.language, `/f/${form.slug}`);
  return html(error.status, formPageHtml({ ...view, errors, values: error.posted }), { ...error.headers, ...pageHeaders(view) });
}
