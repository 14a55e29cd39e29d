// Notion: the database's schema read first (GET /v1/databases/{id}), then a page created in it (POST /v1/pages)
// with each field written by its property's type (senders/notion.ts); a field with no property of its name is left out.
import type { Answer } from "../../../lib/http-request.ts";
import { mappedEntries, outcome, vendorMessage, vendorUrl } from "../senders/common.ts";
import { NOTION_VERSION, propertyValue } from "../senders/notion.ts";
import { destinationKind, text } from "./kind.ts";

/** A Notion database, written to by an integration it is connected to. */
export const notion = destinationKind({
  type: "notion",
  title: "Notion",
  schema: (z) => z.strictObject({ token: text(z, "config.token"), databaseId: text(z, "config.databaseId") }),
  secrets: ["token"],
  targets: ["databaseId"],
  vendorBase: "https://api.notion.com",
  inputs: [
    { key: "token", label: "Integration token", kind: "secret" },
    { key: "databaseId", label: "Database id" },
  ],
  /** Creates a page in the database, its properties written by the types its schema gives. */
  async send(context) {
    const config = context.target.config;
    const headers = {
      authorization: `Bearer ${config.token}`,
      "notion-version": NOTION_VERSION,
      "content-type": "application/json",
      "user-agent": context.userAgent,
    };
    const explain = (step: string, answer: Answer) => (status: number) => {
      if (status === 401) return "Notion refused the token (401).";
      if (status === 404 || status === 403) {
        return `Notion: no database ${config.databaseId} this integration can reach (${status}): open the database, ••• → Connections, and add the integration.`;
      }
      if (status === 429) return "Notion's rate limit (429); tried again later.";
      const message = vendorMessage(answer);
      return `Notion refused ${step} (${status}${message ? `: ${message}` : ""}).`;
    };
    const base = notion.vendorBase!;
    const schema = await context.call(vendorUrl(base, config, `/v1/databases/${encodeURIComponent(config.databaseId)}`), { method: "GET", headers });
    if (!schema.ok) return outcome(schema, explain("to show the database", schema));
    let properties: Record<string, { type?: string }>;
    try {
      properties = (JSON.parse(schema.text) as { properties: Record<string, { type?: string }> }).properties ?? {};
    } catch {
      return { ...outcome(schema, () => null), ok: false, error: "Notion: the database's schema could not be read." };
    }
    const written: Record<string, unknown> = {};
    for (const [name, value] of mappedEntries(context.event.data.submission.data, context.target.fields)) {
      const property = properties[name];
      const converted = property?.type ? propertyValue(property.type, value) : undefined;
      if (converted !== undefined) written[name] = converted;
    }
    const page = await context.call(vendorUrl(base, config, "/v1/pages"), {
      method: "POST",
      headers,
      body: JSON.stringify({ parent: { database_id: config.databaseId }, properties: written }),
    });
    return outcome(page, explain("the page", page));
  },
});
