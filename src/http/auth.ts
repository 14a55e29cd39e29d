import { ApiError } from "../errors.ts";
import type { Permission, Principal } from "../domain/types.ts";
import { requirePermission } from "../services/principal.ts";
import type { RequestContext } from "./context.ts";

/**
 * The principal of the request's key, refused with 401 (no or bad key) or 403 (a form-level key outside
 * its form, or a missing permission). `formScoped` routes are the ones below /api/forms/{id}/submissions.
 */
export async function authorize(ctx: RequestContext, permission: Permission, { formScoped = false } = {}): Promise<Principal> {
  const principal = await ctx.services.keys.authenticate(ctx.request.headers.get("authorization"));
  await ctx.services.urls.learn?.();
  if (principal.formId) {
    const outside = new ApiError("forbidden", "A form-level key reaches only its own form's submissions.");
    if (!formScoped) throw outside;
    const own = await ctx.services.forms.findRow(principal, principal.formId);
    if (ctx.params.id !== own.id && ctx.params.id !== own.slug) throw outside;
  }
  requirePermission(principal, permission);
  return principal;
}
