/** @jsxImportSource hono/jsx */
// The Destinations section's posts (docs/dashboard.md): add one from its type's form, change one, test, delete, send a delivery again.
import { sectionHref } from "./pages/settings.tsx";
import { ApiError } from "../errors.ts";
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { type DestinationType, kindOf, SECRET_KEYS } from "../services/outbox/destination-types/index.ts";
import { TEST_FLASH } from "./destinations-view.ts";
import { action, fieldErrors } from "./guard.tsx";
import { conditionInputs, postedConditions } from "./pages/condition-rows.tsx";
import { flashCookie, ownForm, redirect } from "./http.ts";
import { settingsResponse } from "./settings-routes.tsx";

/** An optional JSON input of the add form: absent when empty; a value that is not JSON is refused, naming it. */
function jsonInput(body: URLSearchParams, name: string, field: string): unknown {
  const text = (body.get(name) ?? "").trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new ApiError("invalid_body", `${field} must be JSON, such as the example beside it.`, { field });
  }
}

/** A type's inputs as posted under `prefix` (`prefix.key`): the config's settings typed in, fields, and the conditions' rows. */
function posted(body: URLSearchParams, prefix: string, type: DestinationType) {
  const config: Record<string, unknown> = {};
  for (const input of kindOf(type)?.inputs ?? []) {
    const value = (body.get(`${prefix}.${input.key}`) ?? "").trim();
    if (value) config[input.key] = value;
  }
  const when = postedConditions(body, prefix);
  return { config, fields: jsonInput(body, `${prefix}.fields`, "fields"), when: when.length ? when : undefined };
}

/** The body of the API's create, from the posted form of one type (its inputs are named `type.key`). */
function createBody(body: URLSearchParams, type: DestinationType): Record<string, unknown> {
  const { config, fields, when } = posted(body, type, type);
  return { type, config, ...(fields === undefined ? {} : { fields }), ...(when === undefined ? {} : { when }) };
}

/**
 * The body of the API's update, from a destination's edit form (its inputs are named `<id>.key`): a secret left
 * empty is not sent, so the saved one is kept; an emptied optional setting, fields or conditions are cleared.
 */
function updateBody(body: URLSearchParams, id: string, type: DestinationType): Record<string, unknown> {
  const { config, fields, when } = posted(body, id, type);
  return { config, fields: fields ?? null, when: when ?? [], enabled: body.get(`${id}.enabled`) === "true" };
}

/** Where an error of a destination's form goes: beside the input it names, else above the form's button. */
function errorsBeside(error: unknown, type: DestinationType): Record<string, string> {
  const [message] = Object.values(fieldErrors(error));
  const path = (error instanceof ApiError ? (error.field ?? "") : "").split(".");
  const beside =
    path[0] === "config" && kindOf(type)?.inputs.some((input) => input.key === path[1])
      ? `config.${path[1]}`
      : path[0] === "fields" || path[0] === "when"
        ? path[0]
        : "destination";
  return { [beside]: message! };
}

/** What was typed into a type's or a destination's form (its inputs named `prefix.key`), secrets left out: shown again after a refusal. */
function typedIn(body: URLSearchParams, prefix: string, type: DestinationType): Record<string, string> {
  const keys = [...(kindOf(type)?.inputs ?? []).map((input) => input.key).filter((key) => !SECRET_KEYS.includes(key)), "fields"];
  const names = [...keys.map((key) => `${prefix}.${key}`), ...conditionInputs(prefix)];
  return Object.fromEntries(names.map((name) => [name, body.get(name) ?? ""]));
}

/** Registers the Destinations section's actions. */
export function destinationPageRoutes(router: Router<Handler>): void {
  const back = (formId: string, notice = "saved") => redirect(sectionHref(formId, "destinations", notice));

  router.on(
    "POST",
    "/dashboard/forms/:id/destinations",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const type = body.get("type") as DestinationType;
      if (!kindOf(type)) return settingsResponse(ctx, session, row, { status: 400, errors: { destination: "Choose a type of destination." } });
      try {
        await ctx.services.destinations.create(principal, row.id, createBody(body, type));
        return back(row.id);
      } catch (error) {
        // A message naming an input of the type's form goes beside it, and that form is opened again.
        return settingsResponse(ctx, session, row, {
          status: 400,
          errors: { ...errorsBeside(error, type), destinationType: type },
          typed: typedIn(body, type, type),
        });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/destinations/:destinationId",
    action(async (ctx, session, body) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const id = ctx.params.destinationId!;
      const destination = (await ctx.services.destinations.list(principal, row.id)).find((d) => d.id === id);
      if (!destination) throw new ApiError("not_found", "No such destination on this form.");
      try {
        await ctx.services.destinations.update(principal, row.id, id, updateBody(body, id, destination.type));
        return back(row.id);
      } catch (error) {
        return settingsResponse(ctx, session, row, {
          status: 400,
          errors: { ...errorsBeside(error, destination.type), editing: id },
          typed: typedIn(body, id, destination.type),
        });
      }
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/destinations/:destinationId/test",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const result = await ctx.services.destinations.test(principal, row.id, ctx.params.destinationId!);
      const shown = JSON.stringify({ ...result, destinationId: ctx.params.destinationId });
      return redirect(`/dashboard/forms/${row.id}/settings#destinations`, [flashCookie(ctx, `${TEST_FLASH}${shown}`)]);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/destinations/:destinationId/delete",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.destinations.remove(principal, row.id, ctx.params.destinationId!);
      return back(row.id, "done");
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/destinations/deliveries/:deliveryId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.webhooks.retry(principal, row.id, ctx.params.deliveryId!);
      return back(row.id, "redelivered");
    }),
  );
}
