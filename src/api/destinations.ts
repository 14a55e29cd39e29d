import { json, noContent } from "../http/respond.ts";
import { answerBaseUrl } from "../services/urls.ts";
import { SECRET_KEYS } from "../services/outbox/destination-types/index.ts";
import { typedCreateSchema, updateSchema } from "../services/outbox/destinations.ts";
import { FORM, LOCATION, operation } from "./operation.ts";

// Account keys only, as webhooks: a destination's settings hold the owner's tokens for other services.

const DESTINATION = `${FORM}/destinations/{destinationId}`;

/** /api/forms/{id}/destinations: where kept submissions are sent besides webhooks (docs/api.md, "Destinations"). */
export const destinationOperations = [
  operation({
    method: "POST",
    path: `${FORM}/destinations`,
    operationId: "createDestination",
    summary: "Add a destination",
    description: `Each kept submission is sent to it through the outbox, with the webhooks' retries, circuit and delivery log. Secrets in config (${SECRET_KEYS.join(", ")}) are never shown again. An address it calls (baseUrl, a Teams url, the key's token_uri) must be public unless the server runs with --webhooks-allow-private.`,
    tag: "Destinations",
    scope: "account",
    permission: "write",
    body: {
      name: "DestinationCreate",
      // The API reads the body with createSchema, then config by its type, so that an error names the type; the
      // document shows the same rules as one union by type.
      schema: typedCreateSchema,
      example: {
        type: "ntfy",
        config: { topic: "my-forms-7c1e" },
        fields: { email: "email", message: "message" },
        when: [{ field: "topic", op: "equals", value: "sales" }],
      },
      notes: {
        type: "The destination's type, which says what config holds (docs/api.md, Destinations).",
        config:
          "The type's settings. baseUrl, where a type takes it, replaces the scheme, host and port of the vendor's API. Secrets (writeOnly) are never shown again; a change of where it sends takes them again.",
        fields:
          'Form field → the destination\'s name ({"email": "Email address"}): only the named fields are sent, under these names. Without it, every field under its own name. For mailchimp, the names are merge tags.',
        when: "Conditions, as on webhooks: sent only for submissions that meet them all.",
        enabled: "Default true; false queues nothing for it.",
      },
    },
    ok: { status: 201, description: "The destination, secrets left out.", schema: "Destination", headers: LOCATION },
    async handler(ctx) {
      const destination = await ctx.services.destinations.create(ctx.principal, ctx.params.id!, ctx.body);
      return json(201, destination, { Location: `${answerBaseUrl(ctx.services.urls)}/api/forms/${destination.formId}/destinations/${destination.id}` });
    },
  }),
  operation({
    method: "GET",
    path: `${FORM}/destinations`,
    operationId: "listDestinations",
    summary: "List destinations",
    tag: "Destinations",
    scope: "account",
    permission: "read",
    ok: { status: 200, description: "The form's destinations, oldest first, secrets left out.", schema: "DestinationList" },
    handler: async (ctx) => json(200, { destinations: await ctx.services.destinations.list(ctx.principal, ctx.params.id!) }),
  }),
  operation({
    method: "PATCH",
    path: DESTINATION,
    operationId: "updateDestination",
    summary: "Change a destination",
    description:
      "Any of config (replaced whole, but a secret left out is kept, unless the change moves where the destination sends: a new baseUrl takes its secret again), fields, when, enabled.",
    tag: "Destinations",
    scope: "account",
    permission: "write",
    body: { name: "DestinationUpdate", schema: updateSchema, example: { enabled: false } },
    ok: { status: 200, description: "The destination as changed.", schema: "Destination" },
    handler: async (ctx) => json(200, await ctx.services.destinations.update(ctx.principal, ctx.params.id!, ctx.params.destinationId!, ctx.body)),
  }),
  operation({
    method: "DELETE",
    path: DESTINATION,
    operationId: "deleteDestination",
    summary: "Remove a destination",
    tag: "Destinations",
    scope: "account",
    permission: "delete",
    ok: { status: 204, description: "Removed, with its delivery log." },
    async handler(ctx) {
      await ctx.services.destinations.remove(ctx.principal, ctx.params.id!, ctx.params.destinationId!);
      return noContent();
    },
  }),
  operation({
    method: "POST",
    path: `${DESTINATION}/test`,
    operationId: "testDestination",
    summary: "Send a test submission to a destination",
    description: "Sends a made-up submission now and answers what the service said; nothing is stored. A refusal is a 200 with ok false and the reason.",
    tag: "Destinations",
    scope: "account",
    permission: "write",
    ok: { status: 200, description: "What the destination's service answered.", schema: "DestinationTest" },
    handler: async (ctx) => json(200, await ctx.services.destinations.test(ctx.principal, ctx.params.id!, ctx.params.destinationId!)),
  }),
];
