/** @jsxImportSource hono/jsx */
import { answerBaseUrl } from "../services/urls.ts";
import { ApiError } from "../errors.ts";
import type { Handler, RequestContext } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import type { Form } from "../domain/types.ts";
import type { ApiKey, NewApiKey } from "../services/keys.ts";
import { inEitherMode } from "../services/principal.ts";
import type { Session } from "../services/people/users.ts";
import { action, fieldErrors, noticeOf, signedIn } from "./guard.tsx";
import { flashCookie, ownerOf, ownForm, page, redirect, takeFlash } from "./http.ts";
import { KeysPage, type KeyInput } from "./pages/keys.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** The account's keys of both modes, newest first, and its forms (to name a form key's form). */
async function keysAndForms(ctx: RequestContext, session: Session): Promise<{ keys: ApiKey[]; forms: Form[]; baseUrl: string }> {
  const keys = [...(await ctx.services.keys.list(ownerOf(session, "live"))), ...(await ctx.services.keys.list(ownerOf(session, "test")))];
  keys.sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : a.id < b.id ? 1 : -1));
  const forms = [...(await ctx.services.forms.list(ownerOf(session, "live"))), ...(await ctx.services.forms.list(ownerOf(session, "test")))];
  return { keys, forms, baseUrl: answerBaseUrl(ctx.services.urls) };
}

/** /dashboard/keys: list, create (shown once), revoke. */
export function keyPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/keys",
    signedIn(async (ctx, session) => {
      const flash = takeFlash(ctx);
      const created = flash.value?.startsWith("key:") ? (JSON.parse(flash.value.slice(4)) as NewApiKey) : null;
      return page(200, String(<KeysPage session={session} {...(await keysAndForms(ctx, session))} created={created} notice={noticeOf(ctx)} />), flash.headers);
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/keys",
    action(async (ctx, session, body) => {
      const input: KeyInput = {
        name: body.get("name") ?? "",
        type: body.get("type") ?? "live",
        formId: body.get("formId") ?? "",
        permissions: body.getAll("permissions"),
      };
      // No box ticked is no permission, not every one: a key is given what its maker chose, never more.
      if (input.permissions!.length === 0) {
        const errors = { permissions: "Tick at least one permission: read to look, write to change, delete, or admin for everything." };
        return render(400, <KeysPage session={session} {...(await keysAndForms(ctx, session))} input={input} errors={errors} />);
      }
      try {
        // A form key takes its form's mode; a live or test key, its own.
        const principal =
          input.type === "form" && input.formId
            ? (await ownForm(ctx, session, input.formId)).principal
            : ownerOf(session, input.type === "test" ? "test" : "live");
        const created = await ctx.services.keys.create(principal, {
          type: input.type,
          ...(input.name ? { name: input.name } : {}),
          ...(input.type === "form" ? { formId: input.formId || undefined } : {}),
          permissions: input.permissions,
        });
        // POST, redirect, GET: the page the redirect opens shows the key once; a reload makes no second key.
        return redirect("/dashboard/keys", [flashCookie(ctx, `key:${JSON.stringify(created)}`)]);
      } catch (error) {
        const errors = error instanceof ApiError && error.code === "form_not_found" ? { formId: "Choose one of your forms." } : fieldErrors(error);
        return render(400, <KeysPage session={session} {...(await keysAndForms(ctx, session))} input={input} errors={errors} />);
      }
    }, "admin"),
  );

  router.on(
    "POST",
    "/dashboard/keys/:keyId/revoke",
    action(async (ctx, session) => {
      const id = ctx.params.keyId!;
      // The owner may revoke any key of the account, whichever mode it is in.
      await inEitherMode(session.user.accountId, "not_found", (owner) => ctx.services.keys.revoke(owner, id));
      return redirect("/dashboard/keys?notice=revoked");
    }, "admin"),
  );
}
