import { json, noContent } from "../http/respond.ts";
import { createSchema } from "../services/keys.ts";
import { operation } from "./operation.ts";

/** /api/keys: list, create and revoke keys of the key's own account and mode, admin only (docs/api.md, "Authentication and keys"). */
export const keyOperations = [
  operation({
    method: "GET",
    path: "/api/keys",
    operationId: "listKeys",
    summary: "List keys",
    tag: "Keys",
    scope: "account",
    permission: "admin",
    ok: { status: 200, description: "The account's keys of the key's mode, revoked ones too.", schema: "KeyList" },
    handler: async (ctx) => json(200, { keys: await ctx.services.keys.list(ctx.principal) }),
  }),
  operation({
    method: "POST",
    path: "/api/keys",
    operationId: "createKey",
    summary: "Create a key",
    description: "A key can mint only keys of its own mode, with permissions it has itself.",
    tag: "Keys",
    scope: "account",
    permission: "admin",
    body: {
      name: "KeyCreate",
      schema: createSchema,
      example: { type: "form", formId: "frm_0f3k9x2m7q8r4t6v1w5y0z3a", permissions: ["read"], name: "site reader" },
      notes: {
        type: "Default: the calling key's mode. live and test must be the calling key's own mode.",
        formId: "The id or slug of a form of the same account and mode: required with type form, refused otherwise.",
        permissions:
          'Any of read, write, delete, admin (an array, or "read,write"); only permissions the calling key has. Default: all four, read for a form-level key.',
        name: "A label; at most 200 characters.",
      },
    },
    errors: [404],
    ok: { status: 201, description: "The key, shown this once (Cache-Control: no-store).", schema: "NewApiKey" },
    handler: async (ctx) => json(201, await ctx.services.keys.create(ctx.principal, ctx.body), { "Cache-Control": "no-store" }),
  }),
  operation({
    method: "DELETE",
    path: "/api/keys/{keyId}",
    operationId: "revokeKey",
    summary: "Revoke a key",
    description: "It stops working at once.",
    tag: "Keys",
    scope: "account",
    permission: "admin",
    ok: { status: 204, description: "Revoked." },
    async handler(ctx) {
      await ctx.services.keys.revoke(ctx.principal, ctx.params.keyId!);
      return noContent();
    },
  }),
];
