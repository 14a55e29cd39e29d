import { afterAll, beforeAll, expect, test } from "bun:test";
import { OPERATIONS } from "../../src/api/index.ts";
import { COLLECTIONS, FORM_DEFAULTS, formsFileJsonSchema, REFERENCE } from "../../src/forms-as-code/schema.ts";
import { declaredTools } from "../../src/mcp/tools.ts";
import { buildDocument, DOCUMENT_SERVER } from "../../src/openapi/document.ts";
import { operator } from "../../src/services/principal.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

// The MCP tools and the forms file are derived from the API's declarations and schemas. These tests fail the
// day they differ: a tool that is not an operation (or the other way round), a tool's input that is not its
// operation's, a form setting the file does not take, or a setting without the default the file resets it to.

type Schema = { properties?: Record<string, Schema>; required?: string[]; items?: Schema; additionalProperties?: Schema; pattern?: string };

let document: Record<string, any>;
let app: TestApp;
beforeAll(async () => {
  document = await buildDocument({ serverUrl: DOCUMENT_SERVER });
  app = await testApp();
});
afterAll(() => app.close());

test("the tools are exactly the operations that take a key, each with its operation's path, query and body as input", async () => {
  const tools = await declaredTools();
  const operations = OPERATIONS.filter((declared) => declared.scope !== "public");
  expect(tools.map((tool) => tool.name)).toEqual(operations.map((declared) => declared.operationId));
  for (const declared of operations) {
    const tool = tools.find((candidate) => candidate.name === declared.operationId)!;
    const path = [...declared.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    const input = { properties: Object.keys(tool.inputSchema.properties), required: tool.inputSchema.required };
    expect({ operation: declared.operationId, ...input }).toEqual({
      operation: declared.operationId,
      properties: [...path, ...(declared.query ?? []), ...(declared.body ? ["body"] : [])],
      required: [...path, ...(declared.body ? ["body"] : [])],
    });
    if (declared.body) {
      const body = document.components.schemas[declared.body.name] as Schema;
      expect(Object.keys((tool.inputSchema.properties.body as Schema).properties!)).toEqual(Object.keys(body.properties!));
    }
    expect(tool.description).toStartWith(declared.summary);
  }
});

test("a form's entry in the file takes every setting of PATCH /api/forms/{id} but the slug (its key), and each collection's create body", async () => {
  const schema = (await formsFileJsonSchema("http://localhost:8080")) as Schema;
  const entry = schema.properties!.forms!.additionalProperties!;
  const update = document.components.schemas.FormUpdate as Schema;
  const settings = Object.keys(update.properties!).filter((name) => name !== "slug");
  expect(Object.keys(entry.properties!).toSorted()).toEqual([...settings, ...Object.keys(COLLECTIONS)].toSorted());
  expect(entry.required).toEqual(["name"]);
  const webhook = document.components.schemas.WebhookCreate as Schema;
  expect(Object.keys(entry.properties!.webhooks!.items!.properties!)).toEqual(Object.keys(webhook.properties!));
  // A secret is a reference in the file, never a value.
  expect(entry.properties!.webhooks!.items!.properties!.secret!.pattern).toBe(REFERENCE.source);
});

test("every setting but the name has the default a form made with only a name shows, which apply resets a left-out setting to", async () => {
  const account = await app.services.accounts.create("defaults");
  const bare = (await app.services.forms.create(operator(account.id, "live"), { name: "Bare" })) as unknown as Record<string, unknown>;
  const update = document.components.schemas.FormUpdate as Schema;
  const settings = Object.keys(update.properties!).filter((name) => name !== "slug" && name !== "name");
  expect(Object.keys(FORM_DEFAULTS).toSorted()).toEqual(settings.toSorted());
  expect(Object.fromEntries(settings.map((name) => [name, bare[name]]))).toEqual(FORM_DEFAULTS);
});
