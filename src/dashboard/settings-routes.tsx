/** @jsxImportSource hono/jsx */
import type { FormRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { FormsService } from "../services/forms.ts";
import type { Session } from "../services/users.ts";
import { action, fieldErrors } from "./guard.tsx";
import { flashCookie, ownForm, page, redirect, takeFlash } from "./http.ts";
import { captchaSection, filesSection, notificationsSection, retentionSection } from "./pages/form-sections.tsx";
import { SettingsPage, settingsInput, type SettingsInput } from "./pages/settings.tsx";
import { postedSpamInput, spamErrorField, spamInput, spamSection, spamUpdate, type SpamInput } from "./pages/spam-settings.tsx";
import { type ShownSecret, webhooksSection } from "./pages/webhooks.tsx";

const DEFAULT_MAX_FILE = 10 * 1024 * 1024;

/** A number of days from a form field: empty is null (for ever); anything else is left to the service to judge. */
const days = (value: string | null) => ((value ?? "").trim() === "" ? null : Number((value ?? "").trim()));

/** What each section's form posts, as the PATCH body the forms service takes (the same rules as the API). */
const SECTION_PATCHES: Record<string, (body: URLSearchParams, row: FormRow, forms: FormsService) => Record<string, unknown>> = {
  files: (body) => ({ fileUploads: body.get("fileUploads") === "true" }),
  retention: (body) => ({ retentionDays: days(body.get("retentionDays")), spamRetentionDays: days(body.get("spamRetentionDays")) }),
  captcha: (body, row) => {
    const provider = body.get("provider") ?? "";
    const secret = body.get("secret") ?? "";
    // "none" here leaves the ALTCHA captcha, which the spam section turns on and off, as it is.
    if (!provider) return row.captchaProvider === "altcha" ? {} : { captcha: null };
    // The secret is write-only: left empty with the same provider, the one stored stays.
    if (!secret && provider === row.captchaProvider) return {};
    return { captcha: { provider, secret } };
  },
  spam: (body, row, forms) => spamUpdate(postedSpamInput(body), forms.toForm(row)),
};

/** The settings page of a form with all its sections; `errors` and `input` when a post was refused. */
export async function settingsResponse(
  ctx: RequestContext,
  session: Session,
  row: FormRow,
  options: { status?: number; input?: SettingsInput; spam?: SpamInput; errors?: Record<string, string>; notice?: string } = {},
): Promise<Response> {
  const form = ctx.services.forms.toForm(row);
  const { principal } = await ownForm(ctx, session, row.id);
  const flash = takeFlash(ctx);
  const secret = flash.value?.startsWith("webhook:") ? (JSON.parse(flash.value.slice("webhook:".length)) as ShownSecret) : null;
  const errors = options.errors ?? {};
  const context = {
    session,
    form,
    errors,
    limits: { maxFileSize: ctx.options.maxFileSize ?? DEFAULT_MAX_FILE, maxBody: ctx.options.maxBody },
    mailServer: ctx.options.mail?.server ?? null,
  };
  const webhooks = await ctx.services.webhooks.list(principal, row.id);
  const extra = [
    captchaSection(context),
    spamSection({ session, form, input: options.spam ?? spamInput(form), errors }),
    filesSection(context),
    webhooksSection({ session, form, webhooks, secret, errors }),
    notificationsSection(context),
    retentionSection(context),
  ];
  const body = (
    <SettingsPage session={session} form={form} input={options.input ?? settingsInput(form)} errors={errors} notice={options.notice} extra={extra} />
  );
  return page(options.status ?? 200, String(body), flash.headers);
}

/** Saves of the settings sections, and a form's webhooks: add, rotate, delete, redeliver. */
export function settingsPageRoutes(router: Router<Handler>): void {
  router.on(
    "POST",
    "/dashboard/forms/:id/settings/:section",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const patch = SECTION_PATCHES[ctx.params.section!];
      if (!patch) return settingsResponse(ctx, session, row, { status: 404, errors: { form: "There is no such section of the settings." } });
      try {
        await ctx.services.forms.update(principal, row.id, patch(body, row, ctx.services.forms));
        return redirect(`/dashboard/forms/${row.id}/settings?notice=saved#${ctx.params.section}`);
      } catch (error) {
        if (ctx.params.section !== "spam") return settingsResponse(ctx, session, row, { status: 400, errors: fieldErrors(error) });
        // The spam section shows what was posted again, its error beside the input the service's field names.
        const message = Object.values(fieldErrors(error))[0]!;
        const errors = { [spamErrorField(error instanceof ApiError ? error.field : undefined)]: message };
        return settingsResponse(ctx, session, row, { status: 400, spam: postedSpamInput(body), errors });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/webhooks",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const description = (body.get("description") ?? "").trim();
      try {
        const webhook = await ctx.services.webhooks.create(principal, row.id, {
          url: body.get("url") ?? "",
          format: body.get("format") || undefined,
          ...(description ? { description } : {}),
        });
        const shown: ShownSecret = { webhookId: webhook.id, url: webhook.url, secret: webhook.secret };
        return redirect(`/dashboard/forms/${row.id}/settings?notice=webhook#webhooks`, [flashCookie(ctx, `webhook:${JSON.stringify(shown)}`)]);
      } catch (error) {
        const errors = fieldErrors(error);
        return settingsResponse(ctx, session, row, { status: 400, errors: errors.form ? { webhook: errors.form } : errors });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/webhooks/:webhookId/rotate",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const webhook = await ctx.services.webhooks.rotate(principal, row.id, ctx.params.webhookId!);
      const shown: ShownSecret = { webhookId: webhook.id, url: webhook.url, secret: webhook.secret };
      return redirect(`/dashboard/forms/${row.id}/settings?notice=rotated#webhooks`, [flashCookie(ctx, `webhook:${JSON.stringify(shown)}`)]);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/webhooks/:webhookId/delete",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.webhooks.remove(principal, row.id, ctx.params.webhookId!);
      return redirect(`/dashboard/forms/${row.id}/settings?notice=webhookdeleted#webhooks`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/webhooks/:deliveryId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.webhooks.retry(principal, row.id, ctx.params.deliveryId!);
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=redelivered#webhooks`);
    }),
  );
}
