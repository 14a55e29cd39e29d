import { afterAll, beforeAll, expect, test } from "bun:test";
import { OPERATIONS } from "../../src/api/index.ts";
import { bodyKeys, type Collection, COLLECTIONS, FORM_DEFAULTS, formsFileJsonSchema, REFERENCE } from "../../src/forms-as-code/schema.ts";
import { configSchemas, DESTINATION_TYPES, kindOf, SECRET_KEYS } from "../../src/services/outbox/destination-types/index.ts";
import { declaredTools } from "../../src/mcp/tools.ts";
import { buildDocument, DOCUMENT_SERVER } from "../../src/openapi/document.ts";
import { operator } from "../../src/services/principal.ts";
import { type TestApp, testApp } from "../helpers/app.ts";

// The MCP tools and the forms file are derived from the API's declarations and schemas. These tests fail the
// day they differ: a tool that is not an operation (or the other way round), a tool's input that is not its
// operation's, a form setting the file does not take, or a setting without the default the file resets it to, a
// collection of the file whose operations are not the API's, or a destination's secret its schema does not mark.

type Schema = {
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: Schema;
  oneOf?: Schema[];
  pattern?: string;
  writeOnly?: boolean;
  const?: unknown;
  $ref?: string;
};

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
      // An object's keys, or those of each option of a union by one key (a destination's type).
      const keys = (schema: Schema) => (schema.oneOf ?? [schema]).map((option) => Object.keys(option.properties!));
      expect(keys(tool.inputSchema.properties.body as Schema)).toEqual(keys(body));
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
  // A destination is one of its types, each with its own config.
  const destination = document.components.schemas.DestinationCreate as Schema;
  const types = entry.properties!.destinations!.items!.oneOf!;
  expect(types.map((type) => type.properties!.type!.const)).toEqual([...DESTINATION_TYPES]);
  // The API's body is the same union, type by type, with the same settings in each type's config.
  expect(destination.oneOf!.map((type) => type.properties!.type!.const)).toEqual([...DESTINATION_TYPES]);
  types.forEach((type, i) => {
    expect(Object.keys(type.properties!)).toEqual(Object.keys(destination.oneOf![i]!.properties!));
    expect(Object.keys(type.properties!.config!.properties!)).toEqual(Object.keys(destination.oneOf![i]!.properties!.config!.properties!));
  });
});

test("each collection of the file is the API's: its operations exist, on its path, with its list's field, item parameter and bodies", async () => {
  for (const [name, collection] of Object.entries(COLLECTIONS) as [string, Collection][]) {
    const op = collection.operations;
    const find = (operationId: string) => OPERATIONS.find((declared) => declared.operationId === operationId);
    const [list, add, remove, update] = [find(op.list), find(op.add), find(op.remove), op.update ? find(op.update) : undefined];
    expect({ name, list: list?.method, add: add?.method, remove: remove?.method, update: update?.method }).toEqual({
      name,
      list: "GET",
      add: "POST",
      remove: "DELETE",
      update: op.update ? "PATCH" : undefined,
    });
    expect(add!.path).toBe(list!.path);
    for (const item of [remove!, ...(update ? [update] : [])]) expect(item.path).toBe(`${list!.path}/{${op.itemParam}}`);
    const answer = document.components.schemas[list!.ok.schema as string] as Schema;
    expect(Object.keys(answer.properties!)).toEqual([op.field]);
    const created = document.components.schemas[add!.body!.name] as Schema;
    const createdKeys = [...new Set((created.oneOf ?? [created]).flatMap((option) => Object.keys(option.properties!)))];
    expect(bodyKeys(await collection.body())).toEqual(createdKeys);
    if (update)
      expect(Object.keys((await collection.updateBody!()).shape)).toEqual(Object.keys((document.components.schemas[update.body!.name] as Schema).properties!));
  }
});

test("a destination's secrets are writeOnly in its type's schema, and references in the served file's schema; its target is no secret", async () => {
  const { z } = await import("zod");
  const schemas = configSchemas(z);
  const file = (await formsFileJsonSchema("http://localhost:8080")) as Schema;
  const types = file.properties!.forms!.additionalProperties!.properties!.destinations!.items!.oneOf!;
  const secretsSeen = new Set<string>();
  for (const type of DESTINATION_TYPES) {
    const config = z.toJSONSchema(schemas[type], { io: "input", unrepresentable: "any" }) as Schema;
    const keys = Object.keys(config.properties!);
    const writeOnly = keys.filter((key) => config.properties![key]!.writeOnly === true);
    const secrets = keys.filter((key) => (SECRET_KEYS as readonly string[]).includes(key));
    expect({ type, writeOnly }).toEqual({ type, writeOnly: secrets });
    for (const key of secrets) secretsSeen.add(key);
    const inFile = types.find((candidate) => candidate.properties!.type!.const === type)!.properties!.config!.properties!;
    expect({ type, references: secrets.map((key) => [inFile[key]!.pattern, inFile[key]!.writeOnly]) }).toEqual({
      type,
      references: secrets.map(() => [REFERENCE.source, true]),
    });
    for (const key of kindOf(type)!.targets)
      expect({ type, key, known: keys.includes(key), secret: secrets.includes(key) }).toEqual({ type, key, known: true, secret: false });
  }
  expect([...secretsSeen].toSorted()).toEqual([...SECRET_KEYS].toSorted());
});

test("every setting but the name has the default a form made with only a name shows, which apply resets a left-out setting to", async () => {
  const account = await app.services.accounts.create("defaults");
  const bare = (await app.services.forms.create(operator(account.id, "live"), { name: "Bare" })) as unknown as Record<string, unknown>;
  const update = document.components.schemas.FormUpdate as Schema;
  const settings = Object.keys(update.properties!).filter((name) => name !== "slug" && name !== "name");
  expect(Object.keys(FORM_DEFAULTS).toSorted()).toEqual(settings.toSorted());
  expect(Object.fromEntries(settings.map((name) => [name, bare[name]]))).toEqual(FORM_DEFAULTS);
});
