// Notion: the database's schema read first (GET /v1/databases/{id}), then a page created in it (POST /v1/pages)
// with each field written by its property's type; a field with no property of its name is left out.
// Two plain requests: @notionhq/client would add a client for two calls and bypass the address guard.
import { valueText } from "./common.ts";

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
