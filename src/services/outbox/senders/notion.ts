// Notion: the database's schema read first (GET /v1/databases/{id}), then a page created in it (POST /v1/pages)
// with each field written by its property's type; a field with no property of its name is left out.
// Two plain requests: @notionhq/client would add a client for two calls and bypass the address guard.
import type { AttemptResult } from "../deliveries.ts";
import { VENDOR_BASES } from "../destination-types.ts";
import type { Answer } from "../../../lib/http-request.ts";
import { mappedEntries, outcome, type SendContext, valueText, vendorMessage, vendorUrl } from "./common.ts";

/** The API version formsvc writes to: the Notion-Version header every request must carry. */
export const NOTION_VERSION = "2022-06-28";
/** Notion's limit on one text object's content. */
const TEXT_MAX = 2000;

const richText = (text: string) => [{ type: "text", text: { content: text.slice(0, TEXT_MAX) } }];
const listOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value.map(valueText) : valueText(value).split(","))
    .map((item) => item.trim().replace(/,/g, " "))
    .filter((item) => item !== "")
    .slice(0, 100);
const YES = new Set(["true", "yes", "on", "1", "checked"]);

/** A value as a property of `type` takes it, or undefined when that type cannot hold it (the field is left out). */
export function propertyValue(type: string, value: unknown): unknown {
  const text = valueText(value).trim();
  switch (type) {
    case "title":
      return { title: richText(text) };
    case "rich_text":
      return { rich_text: richText(text) };
    case "number": {
      const number = Number(text);
      return text !== "" && Number.isFinite(number) ? { number } : undefined;
    }
    case "select":
      return text ? { select: { name: text.replace(/,/g, " ").slice(0, 100) } } : undefined;
    case "status":
      return text ? { status: { name: text.slice(0, 100) } } : undefined;
    case "multi_select":
      return { multi_select: listOf(value).map((name) => ({ name: name.slice(0, 100) })) };
    case "checkbox":
      return { checkbox: YES.has(text.toLowerCase()) };
    case "email":
      return text ? { email: text.slice(0, 200) } : undefined;
    case "url":
      return text ? { url: text.slice(0, 2000) } : undefined;
    case "phone_number":
      return text ? { phone_number: text.slice(0, 200) } : undefined;
    case "date":
      return text && !Number.isNaN(Date.parse(text)) ? { date: { start: text } } : undefined;
    default:
      // people, files, relation, formula, rollup …: nothing a form's text can fill.
      return undefined;
  }
}

/** Creates a page in the database, its properties written by the types its schema gives. */
export async function sendToNotion(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { token: string; databaseId: string };
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
  const schema = await context.call(vendorUrl(VENDOR_BASES.notion, config, `/v1/databases/${encodeURIComponent(config.databaseId)}`), {
    method: "GET",
    headers,
  });
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
  const page = await context.call(vendorUrl(VENDOR_BASES.notion, config, "/v1/pages"), {
    method: "POST",
    headers,
    body: JSON.stringify({ parent: { database_id: config.databaseId }, properties: written }),
  });
  return outcome(page, explain("the page", page));
}
