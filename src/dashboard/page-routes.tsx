/** @jsxImportSource hono/jsx */
import type { Form, FormPage } from "../domain/types.ts";
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { knownLanguage, messagesFor, pickLanguage } from "../lib/i18n/index.ts";
import { isHttpUrl } from "../lib/validate.ts";
import { formPageHtml } from "../routes/form-page/render.ts";
import { sectionHref } from "./pages/settings.tsx";
import { captchaWidget, pagePolicy } from "../routes/form-page/widgets.ts";
import { action, fieldErrors, signedIn } from "./guard.tsx";
import { ownForm, redirect } from "./http.ts";
import { PAGE_INPUTS, pageBody, postedPageInput } from "./pages/page-section.tsx";
import { settingsResponse } from "./settings-routes.tsx";

// A service error names `page.title`; the section shows it beside its own input.
const PAGE_FIELDS = Object.fromEntries(Object.values(PAGE_INPUTS).map((key) => [`page.${key}`, key]));

/** The page as the preview's query describes it (what the owner typed), each value the service would refuse left out. */
function previewPage(form: Form, query: URLSearchParams): FormPage {
  const text = (name: keyof typeof PAGE_INPUTS) => query.get(name)?.trim() || null;
  const logo = text("pageLogoUrl");
  const accent = text("pageAccentColor");
  return {
    enabled: true,
    title: text("pageTitle") ?? form.page.title,
    description: text("pageDescription"),
    logoUrl: logo && isHttpUrl(logo) ? logo : null,
    accentColor: accent && /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i.test(accent) ? accent.toLowerCase() : null,
    submitLabel: text("pageSubmitLabel"),
    thankYouMessage: text("pageThankYouMessage"),
    language: knownLanguage(query.get("pageLanguage")),
  };
}

/** The QR code of the page's address, as SVG; its maker and writer load with the first one asked for. */
export async function qrCode(text: string): Promise<string> {
  const [{ create }, { render }] = await Promise.all([import("qrcode/lib/core/qrcode.js"), import("qrcode/lib/renderer/svg-tag.js")]);
  return render(create(text, { errorCorrectionLevel: "M" }), { margin: 2 });
}

/** The page section's save and preview, the page's QR code, and the preview the section frames. */
export function pagePageRoutes(router: Router<Handler>): void {
  router.on(
    "POST",
    "/dashboard/forms/:id/settings/page",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const input = postedPageInput(body);
      if (body.get("preview")) return settingsResponse(ctx, session, row, { page: { input, notice: "Preview below: nothing was saved." } });
      try {
        await ctx.services.forms.update(principal, row.id, { page: pageBody(input) });
        return redirect(sectionHref(row.id, "page", "saved"));
      } catch (error) {
        return settingsResponse(ctx, session, row, { status: 400, page: { input, errors: fieldErrors(error, PAGE_FIELDS) } });
      }
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/page/qr.svg",
    signedIn(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const svg = await qrCode(ctx.services.forms.toForm(row).submitUrl);
      return new Response(svg, {
        headers: {
          "content-type": "image/svg+xml",
          "cache-control": "private, max-age=300",
          "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
        },
      });
    }),
  );

  router.on(
    "GET",
    "/dashboard/forms/:id/page/preview",
    signedIn(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const saved = ctx.services.forms.toForm(row);
      const form = { ...saved, page: previewPage(saved, ctx.url.searchParams) };
      const language = form.page.language ?? pickLanguage({ acceptLanguage: ctx.request.headers.get("accept-language") });
      const t = messagesFor(language);
      const widget = captchaWidget(form, ctx.url.origin, t);
      // Framed by the settings page only: the sandbox there keeps it from running or posting anything.
      return new Response(formPageHtml({ form, t, language, action: form.submitUrl, widget }), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-store",
          "content-security-policy": `${pagePolicy(widget)}; frame-ancestors 'self'`,
          "x-content-type-options": "nosniff",
        },
      });
    }),
  );
}
