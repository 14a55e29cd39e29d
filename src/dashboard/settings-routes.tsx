/** @jsxImportSource hono/jsx */
import type { FormRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { fieldsOf, type FormsService } from "../services/forms.ts";
import type { Principal } from "../domain/types.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors } from "./guard.tsx";
import { flashCookie, ownForm, page, redirect, takeFlash } from "./http.ts";
import { confirmationBody, confirmationInput, confirmationSection, previewConfirmation, type ConfirmationInput } from "./pages/confirmation.tsx";
import { type FieldsInput, fieldsSection } from "./pages/fields-section.tsx";
import { pageSectionFor, type PageShown } from "./page-settings.ts";
import { PageShare } from "./pages/page-section.tsx";
import { captchaSection, filesSection, notificationsSection, retentionSection } from "./pages/form-sections.tsx";
import { SettingsPage, settingsInput, type SettingsInput } from "./pages/settings.tsx";
import { postedSpamInput, spamErrorField, spamInput, spamSection, spamUpdate, type SpamInput } from "./pages/spam-settings.tsx";
import { type ShownSecret, webhooksSection } from "./pages/webhooks.tsx";
import { destinationsSectionFor } from "./destinations-view.ts";

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
    const siteKey = (body.get("siteKey") ?? "").trim() || null;
    // The secret is write-only: left empty with the same provider, the one stored stays.
    if (!secret && provider === row.captchaProvider) return siteKey === row.captchaSiteKey ? {} : { captcha: { provider, siteKey } };
    return { captcha: { provider, secret, siteKey } };
  },
  spam: (body, row, forms) => spamUpdate(postedSpamInput(body), forms.toForm(row)),
};

/** What the confirmation section shows after a post of its own: the posted inputs, and a notice or errors. */
interface ConfirmationShown {
  input: ConfirmationInput;
  errors?: Record<string, string>;
  notice?: string;
}

const CONFIRMATION_INPUTS = ["field", "subject", "text", "fromName", "replyTo", "optInDays", "perAddressHours", "perFormDaily"] as const;
// A service error names `confirmation.subject`; the section shows it beside its own input.
const CONFIRMATION_FIELDS = Object.fromEntries([...CONFIRMATION_INPUTS, "enabled", "doubleOptIn"].map((name) => [`confirmation.${name}`, name]));

/**
 * The confirmation section's post: saves the form's confirmation email, or (with `preview`) shows the email the
 * posted values would send, saving nothing.
 */
async function postConfirmation(ctx: RequestContext, session: Session, principal: Principal, row: FormRow, body: URLSearchParams): Promise<Response> {
  const input = {
    ...Object.fromEntries(CONFIRMATION_INPUTS.map((name) => [name, body.get(name) ?? ""])),
    enabled: body.get("enabled") === "true",
    doubleOptIn: body.get("doubleOptIn") === "true",
  } as ConfirmationInput;
  if (body.get("preview")) return settingsResponse(ctx, session, row, { confirmation: { input, notice: "Preview below: nothing was saved." } });
  try {
    await ctx.services.forms.update(principal, row.id, { confirmation: confirmationBody(input) });
    return redirect(`/dashboard/forms/${row.id}/settings?notice=saved#confirmation`);
  } catch (error) {
    return settingsResponse(ctx, session, row, { status: 400, confirmation: { input, errors: fieldErrors(error, CONFIRMATION_FIELDS) } });
  }
}

/** The settings page of a form with all its sections; `errors` and `input` when a post was refused. */
export async function settingsResponse(
  ctx: RequestContext,
  session: Session,
  row: FormRow,
  options: {
    status?: number;
    input?: SettingsInput;
    spam?: SpamInput;
    errors?: Record<string, string>;
    notice?: string;
    confirmation?: ConfirmationShown;
    fields?: FieldsInput;
    page?: PageShown;
  } = {},
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
  const confirming = options.confirmation ?? { input: confirmationInput(form.confirmation) };
  const preview = previewConfirmation(form, fieldsOf(row), confirming.input);
  const extra = [
    fieldsSection({ session, form, errors, input: options.fields }),
    captchaSection(context),
    spamSection({ session, form, input: options.spam ?? spamInput(form), errors }),
    filesSection(context),
    webhooksSection({ session, form, webhooks, secret, errors }),
    await destinationsSectionFor(ctx, session, principal, row, errors, flash.value),
    notificationsSection(context),
    confirmationSection({ session, form, preview, ...confirming }),
    retentionSection(context),
    await pageSectionFor(ctx, session, row, options.page),
  ];
  const body = (
    <SettingsPage
      session={session}
      form={form}
      input={options.input ?? settingsInput(form)}
      errors={errors}
      notice={options.notice}
      extra={extra}
      share={<PageShare form={form} />}
    />
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
      if (ctx.params.section === "confirmation") return postConfirmation(ctx, session, principal, row, body);
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
