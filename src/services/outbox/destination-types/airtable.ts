// Airtable: a record created in the table (POST /v0/{baseId}/{table}), typecast so that a select takes a new
// option. A plain request through the outbox's guarded client: the airtable SDK is larger than the one call.
import { mappedEntries, outcome, valueText, vendorMessage, vendorUrl, withMessage, jsonHeaders } from "../senders/common.ts";
import { destinationKind, text } from "./kind.ts";

/** An Airtable base's table, written with a personal access token. */
export const airtable = destinationKind({
  type: "airtable",
  title: "Airtable",
  schema: (z) => z.strictObject({ token: text(z, "config.token"), baseId: text(z, "config.baseId"), table: text(z, "config.table") }),
  secrets: ["token"],
  targets: ["baseId", "table"],
  vendorBase: "https://api.airtable.com",
  inputs: [
    { key: "token", label: "Personal access token", kind: "secret" },
    { key: "baseId", label: "Base id", placeholder: "app…" },
    { key: "table", label: "Table name or id" },
  ],
  async send(context) {
    const config = context.target.config;
    const fields = Object.fromEntries(
      mappedEntries(context.event.data.submission.data, context.target.fields).map(([name, value]) => [name, valueText(value)]),
    );
    const path = `/v0/${encodeURIComponent(config.baseId)}/${encodeURIComponent(config.table)}`;
    const answer = await context.call(vendorUrl(airtable.vendorBase!, config, path), {
      method: "POST",
      headers: jsonHeaders(context, { authorization: `Bearer ${config.token}` }),
      body: JSON.stringify({ records: [{ fields }], typecast: true }),
    });
    return outcome(answer, (status) => {
      if (status === 401) return "Airtable refused the token (401).";
      if (status === 403 || status === 404) {
        return `Airtable: the token cannot write to table "${config.table}" of base ${config.baseId} (${status}): give it the data.records:write scope and this base.`;
      }
      if (status === 422) return withMessage("Airtable refused the record (422)", vendorMessage(answer));
      return status === 429 ? "Airtable's rate limit (429); tried again later." : `Airtable answered ${status}.`;
    });
  },
});
