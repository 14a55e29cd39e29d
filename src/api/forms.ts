import { answerBaseUrl } from "../services/urls.ts";
import { json, noContent } from "../http/respond.ts";
import { FORM, LOCATION, operation } from "./operation.ts";

/** /api/forms: list, create, get, update, delete (docs/api.md, "Forms"). */
export const formOperations = [
  operation({
    method: "GET",
    path: "/api/forms",
    operationId: "listForms",
    summary: "List forms",
    tag: "Forms",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The key's account's forms of the key's mode, newest first.", schema: "FormList" },
    handler: async (ctx) => json(200, { forms: await ctx.services.forms.list(ctx.principal) }),
  }),
  operation({
    method: "POST",
    path: "/api/forms",
    operationId: "createForm",
    summary: "Create a form",
    tag: "Forms",
    scope: "account",
    permission: "write",
    body: "FormCreate",
    errors: [409],
    ok: { status: 201, description: "The form, in the key's mode.", schema: "Form", headers: LOCATION },
    async handler(ctx) {
      const form = await ctx.services.forms.create(ctx.principal, ctx.body);
      return json(201, form, { Location: `${answerBaseUrl(ctx.services.urls)}/api/forms/${form.id}` });
    },
  }),
  operation({
    method: "GET",
    path: FORM,
    operationId: "getForm",
    summary: "Get a form",
    tag: "Forms",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The form.", schema: "Form" },
    handler: async (ctx) => json(200, await ctx.services.forms.get(ctx.principal, ctx.params.id!)),
  }),
  operation({
    method: "PATCH",
    path: FORM,
    operationId: "updateForm",
    summary: "Update a form",
    description: "Any subset of the fields; null clears an optional one.",
    tag: "Forms",
    scope: "account",
    permission: "write",
    body: "FormUpdate",
    errors: [409],
    ok: { status: 200, description: "The whole updated form.", schema: "Form" },
    handler: async (ctx) => json(200, await ctx.services.forms.update(ctx.principal, ctx.params.id!, ctx.body)),
  }),
  operation({
    method: "DELETE",
    path: FORM,
    operationId: "deleteForm",
    summary: "Delete a form",
    description: "The form, its submissions, files, webhooks and notifications are gone, in one transaction.",
    tag: "Forms",
    scope: "account",
    permission: "delete",
    ok: { status: 204, description: "Deleted." },
    async handler(ctx) {
      await ctx.services.forms.remove(ctx.principal, ctx.params.id!);
      return noContent();
    },
  }),
];
