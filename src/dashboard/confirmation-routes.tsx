import type { FormRow } from "../db/schema.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { fieldsOf } from "../services/forms.ts";
import type { Session } from "../services/users.ts";
import { action, fieldErrors } from "./guard.tsx";
import { ownForm, page, redirect } from "./http.ts";
import { confirmationBody, confirmationInput, confirmationSection, previewConfirmation, type ConfirmationInput } from "./pages/confirmation.tsx";
import { SettingsPage, settingsInput, type SettingsSection } from "./pages/settings.tsx";

const INPUTS = ["field", "subject", "text", "fromName", "replyTo", "optInDays", "perAddressHours", "perFormDaily"] as const;
// A service error names `confirmation.subject`; the page shows it beside its own input.
const FIELD_MAP = Object.fromEntries([...INPUTS, "enabled", "doubleOptIn"].map((name) => [`confirmation.${name}`, name]));

/** The confirmation section of a form's settings page, from the saved setting or from what was just posted. */
export function confirmationSettings(
  ctx: RequestContext,
  session: Session,
  row: FormRow,
  options: { input?: ConfirmationInput; errors?: Record<string, string>; notice?: string } = {},
): SettingsSection {
  const form = ctx.services.forms.toForm(row);
  const input = options.input ?? confirmationInput(form.confirmation);
  const preview = previewConfirmation(form, fieldsOf(row), input);
  return confirmationSection({ session, form, input, preview, errors: options.errors, notice: options.notice });
}

/** Saves a form's confirmation email, or (with `preview`) shows the email the posted values would send, saving nothing. */
export function confirmationPageRoutes(router: Router<Handler>): void {
  router.on(
    "POST",
    "/dashboard/forms/:id/confirmation",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const input = {
        ...Object.fromEntries(INPUTS.map((name) => [name, body.get(name) ?? ""])),
        enabled: body.get("enabled") === "true",
        doubleOptIn: body.get("doubleOptIn") === "true",
      } as ConfirmationInput;
      const form = ctx.services.forms.toForm(row);
      const show = (status: number, options: { errors?: Record<string, string>; notice?: string }) =>
        page(
          status,
          String(
            <SettingsPage session={session} form={form} input={settingsInput(form)} extra={[confirmationSettings(ctx, session, row, { input, ...options })]} />,
          ),
        );
      if (body.get("preview")) return show(200, { notice: "Preview below: nothing was saved." });
      try {
        await ctx.services.forms.update(principal, row.id, { confirmation: confirmationBody(input) });
        return redirect(`/dashboard/forms/${row.id}/settings?notice=saved#confirmation`);
      } catch (error) {
        return show(400, { errors: fieldErrors(error, FIELD_MAP) });
      }
    }),
  );
}
