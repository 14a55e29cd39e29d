/** @jsxImportSource hono/jsx */
import { settingFromEnv } from "../config.ts";
import type { FormRow } from "../db/schema.ts";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { fieldsOf, type FormsService } from "../services/forms.ts";
import type { Principal } from "../domain/types.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors, noticeOf, signedIn } from "./guard.tsx";
import { flashCookie, ownForm, page, redirect, takeFlash } from "./http.ts";
import { confirmationBody, confirmationInput, previewConfirmation, type ConfirmationInput } from "./pages/confirmation.tsx";
import type { FieldsInput } from "./pages/fields-section.tsx";
import { settingsSections } from "./pages/settings-sections.tsx";
import { sectionHref, SettingsPage, settingsInput, type SettingsInput } from "./pages/settings.tsx";
import { postedSpamInput, spamErrorField, spamInput, spamUpdate, type SpamInput } from "./pages/spam-settings.tsx";
import type { ShownSecret } from "./pages/webhooks.tsx";
import { pageShownFor, type PageShown } from "./page-settings.ts";
import { destinationsShownFor } from "./destinations-view.ts";

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
    return redirect(sectionHref(row.id, "confirmation", "saved"));
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
    /** What was typed into a destination's form that was refused (pages/destinations.tsx). */
    typed?: Record<string, string>;
  } = {},
): Promise<Response> {
  const form = ctx.services.forms.toForm(row);
  const { principal } = await ownForm(ctx, session, row.id);
  const flash = takeFlash(ctx);
  const secret = flash.value?.startsWith("webhook:") ? (JSON.parse(flash.value.slice("webhook:".length)) as ShownSecret) : null;
  const confirming = options.confirmation ?? { input: confirmationInput(form.confirmation) };
  const sections = settingsSections({
    session,
    form,
    errors: options.errors ?? {},
    limits: { maxFileSize: ctx.options.maxFileSize ?? settingFromEnv("maxFileSize"), maxBody: ctx.options.maxBody },
    mailServer: ctx.options.mail?.server ?? null,
    general: options.input ?? settingsInput(form),
    spam: options.spam ?? spamInput(form),
    fields: options.fields,
    webhooks: await ctx.services.webhooks.list(principal, row.id),
    secret,
    confirmation: { ...confirming, preview: previewConfirmation(form, fieldsOf(row), confirming.input) },
    page: await pageShownFor(ctx, principal, row, options.page),
    destinations: { ...(await destinationsShownFor(ctx, principal, row, flash.value)), typed: options.typed },
  });
  // A notice after a redirect belongs to the section the owner acted in (`at`); one shown by a post's answer, to the page.
  const notice = options.notice ?? noticeOf(ctx);
  const noticeAt = options.notice ? null : ctx.url.searchParams.get("at");
  const body = <SettingsPage session={session} form={form} sections={sections} notice={notice} noticeAt={noticeAt} />;
  return page(options.status ?? 200, String(body), flash.headers);
}

/** A form's settings page: the page, each section's save, a test submission, deletion, and the webhooks: add, rotate, delete. */
export function settingsPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/forms/:id/settings",
    signedIn(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      return settingsResponse(ctx, session, row);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/settings",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const input: SettingsInput = {
        name: body.get("name") ?? "",
        slug: (body.get("slug") ?? "").trim(),
        isActive: body.get("isActive") === "true",
        notificationEmail: (body.get("notificationEmail") ?? "").trim(),
        redirectUrl: (body.get("redirectUrl") ?? "").trim(),
        allowedDomains: body.get("allowedDomains") ?? "",
      };
      try {
        await ctx.services.forms.update(principal, row.id, {
          name: input.name,
          slug: input.slug,
          isActive: input.isActive,
          notificationEmail: input.notificationEmail || null,
          redirectUrl: input.redirectUrl || null,
          allowedDomains: input.allowedDomains.split(/[\s,]+/).filter(Boolean),
        });
        return redirect(sectionHref(row.id, "general", "saved"));
      } catch (error) {
        return settingsResponse(ctx, session, row, { status: 400, input, errors: fieldErrors(error) });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/test",
    action(async (ctx, session, body) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const fields = { email: session.user.email, message: "A test submission sent from the dashboard.", _subject: `Test submission to ${row.name}` };
      try {
        // The public endpoint's rules, as the owner's own post (docs/dashboard.md says what it skips).
        await ctx.services.intake.receive(row, { origin: null, ip: ctx.ip, readFields: async () => fields, byOwner: true }, { rateLimit: () => 0 });
      } catch (error) {
        const errors = { test: fieldErrors(error, {}).form ?? (error as Error).message };
        return settingsResponse(ctx, session, row, { status: 400, errors });
      }
      // From the webhooks section, the test is of the webhooks: back there, where their deliveries are linked.
      if (body.get("return") === "webhooks") return redirect(sectionHref(row.id, "webhooks", "testevent"));
      return redirect(`/dashboard/forms/${row.id}/submissions?notice=tested`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/delete",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      if ((body.get("confirm") ?? "").trim() !== row.name) {
        return settingsResponse(ctx, session, row, { status: 400, errors: { confirm: "Type the form's name exactly as shown to delete it." } });
      }
      await ctx.services.forms.remove(principal, row.id);
      return redirect("/dashboard/forms?notice=deleted");
    }),
  );

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
        return redirect(sectionHref(row.id, ctx.params.section!, "saved"));
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
        return redirect(sectionHref(row.id, "webhooks", "webhook"), [flashCookie(ctx, `webhook:${JSON.stringify(shown)}`)]);
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
      return redirect(sectionHref(row.id, "webhooks", "rotated"), [flashCookie(ctx, `webhook:${JSON.stringify(shown)}`)]);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/webhooks/:webhookId/delete",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.webhooks.remove(principal, row.id, ctx.params.webhookId!);
      return redirect(sectionHref(row.id, "webhooks", "webhookdeleted"));
    }),
  );
}
