import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { OPERATIONS } from "../../src/api/index.ts";
import { CLI, runCli } from "../helpers/cli.ts";
import { type CliWorld, makeForm, startWorld } from "./world.ts";

// An assistant's view of formsvc: the SDK's own client, over HTTP (POST /mcp on a real server) and over stdio
// (a spawned `formsvc mcp`, local on the database file and remote with --url and --key).

let world: CliWorld;
let readKey: string;
let formKey: string;
let formId: string;
const clients: Client[] = [];

const keyed = (permissions: string, extra: string[] = []) =>
  runCli(["keys", "create", "--db", world.server.db, "--permissions", permissions, ...extra]).then((r) => r.stdout.trim());

beforeAll(async () => {
  world = await startWorld();
  formId = await makeForm(world, "Contact", "contact-mcp");
  await world.post("contact-mcp", { email: "ann@example.com", message: "Hello" });
  readKey = await keyed("read");
  formKey = await keyed("read", ["--type", "form", "--form", formId]);
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await world.stop();
});

async function connect(transport: Transport): Promise<Client> {
  const client = new Client({ name: "formsvc-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return client;
}

const overHttp = (key: string) =>
  connect(new StreamableHTTPClientTransport(new URL(`${world.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));

const overStdio = (args: string[], env: Record<string, string> = {}) =>
  connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "mcp", ...args],
      env: { PATH: process.env.PATH ?? "", HOME: "/tmp", ...env },
      stderr: "pipe",
    }),
  );

/** The operations a key of these permissions may call, by the declarations: what tools/list must show it. */
const expectedTools = (allowed: (permission: string, scope: string) => boolean) =>
  OPERATIONS.filter((op) => op.scope !== "public" && allowed(op.permission!, op.scope))
    .map((op) => op.operationId)
    .toSorted();

const names = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name).toSorted();

/** A tool's result: its text read as JSON, and whether it is an error. */
async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = (await client.callTool({ name, arguments: args })) as { content: { type: string; text?: string }[]; isError?: boolean };
  return { isError: result.isError ?? false, json: JSON.parse(result.content[0]!.text!) };
}

const api = (path: string, key = world.key) => fetch(`${world.server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

describe("over HTTP (POST /mcp)", () => {
  test("without a key the endpoint answers 401, as the API does", async () => {
    const response = await fetch(`${world.server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toStartWith("Bearer");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  test("an admin key lists every operation that takes a key; a read-only key only the read ones, no write tool", async () => {
    const admin = await overHttp(world.key);
    expect(await names(admin)).toEqual(expectedTools(() => true));
    const reader = await overHttp(readKey);
    const readable = await names(reader);
    expect(readable).toEqual(expectedTools((permission) => permission === "read"));
    expect(readable).toContain("listForms");
    expect(readable).not.toContain("createForm");
    expect(readable).not.toContain("deleteSubmission");
  });

  test("a tool's description and input schema come from the declaration: path, query and body by name", async () => {
    const { tools } = await (await overHttp(world.key)).listTools();
    const list = tools.find((tool) => tool.name === "listSubmissions")!;
    expect(list.description).toStartWith("List submissions");
    expect(list.inputSchema.required).toEqual(["id"]);
    expect(Object.keys(list.inputSchema.properties!)).toEqual(expect.arrayContaining(["id", "limit", "offset", "filter", "since"]));
    expect(list.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(tools.find((tool) => tool.name === "deleteForm")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    const create = tools.find((tool) => tool.name === "createForm")!;
    expect(create.inputSchema.required).toEqual(["body"]);
    expect((create.inputSchema.properties!.body as { properties: object }).properties).toHaveProperty("notificationEmail");
  });

  test("list and get tools answer the API's JSON", async () => {
    const reader = await overHttp(readKey);
    const listed = await call(reader, "listForms");
    expect(listed.isError).toBe(false);
    expect(listed.json).toEqual(await (await api("/api/forms")).json());
    const got = await call(reader, "getForm", { id: "contact-mcp" });
    expect(got.json).toEqual(await (await api(`/api/forms/${formId}`)).json());
    const page = await call(reader, "listSubmissions", { id: formId, limit: 5 });
    expect(page.json.submissions.map((s: { data: unknown }) => s.data)).toEqual([{ email: "ann@example.com", message: "Hello" }]);
  });

  test("a call the key may not make is a tool error whose text is the API's error JSON", async () => {
    const reader = await overHttp(readKey);
    const refused = await call(reader, "createForm", { body: { name: "Not allowed" } });
    expect(refused.isError).toBe(true);
    expect(refused.json.error).toEqual({ code: "forbidden", message: "This key lacks the write permission." });
    const bad = await call(await overHttp(world.key), "getForm", { id: "no-such-form" });
    expect(bad).toEqual({ isError: true, json: expect.objectContaining({ error: expect.objectContaining({ code: "form_not_found" }) }) });
  });

  test("a form created by a tool is the API's form", async () => {
    const admin = await overHttp(world.key);
    const created = await call(admin, "createForm", { body: { name: "Made by an assistant", slug: "assistant-made" } });
    expect(created.isError).toBe(false);
    const response = await api(`/api/forms/${created.json.id}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(created.json);
    const deleted = await call(admin, "deleteForm", { id: created.json.id });
    expect(deleted).toEqual({ isError: false, json: { status: 204, message: "Deleted." } });
    expect((await api(`/api/forms/${created.json.id}`)).status).toBe(404);
  });

  test("a form-level key sees only the tools open to form keys, and its own form's submissions as a resource", async () => {
    const client = await overHttp(formKey);
    expect(await names(client)).toEqual(expectedTools((permission, scope) => permission === "read" && scope === "form"));
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual([`formsvc://forms/${formId}/submissions`]);
    expect((await call(client, "listForms")).json.error.code).toBe("forbidden");
  });

  test("resources: the forms, each form, and its recent submissions, read through the API", async () => {
    const client = await overHttp(readKey);
    const uris = (await client.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(expect.arrayContaining(["formsvc://forms", `formsvc://forms/${formId}`, `formsvc://forms/${formId}/submissions`]));
    const read = await client.readResource({ uri: `formsvc://forms/${formId}/submissions` });
    const page = JSON.parse((read.contents[0] as { text: string }).text);
    expect(page.submissions).toHaveLength(1);
    expect(page.pagination.limit).toBe(20);
  });

  test("an export is an embedded resource of the CSV, not JSON", async () => {
    const reader = await overHttp(readKey);
    const result = (await reader.callTool({ name: "exportSubmissions", arguments: { id: formId, format: "csv" } })) as {
      content: { type: string; resource: { mimeType: string; text: string } }[];
    };
    expect(result.content[0]!.type).toBe("resource");
    expect(result.content[0]!.resource.mimeType).toBe("text/csv");
    expect(result.content[0]!.resource.text).toContain("ann@example.com");
  });
});

describe("over stdio (formsvc mcp)", () => {
  test("local, on the database file: the operator's tools; a form it creates is the API's", async () => {
    const client = await overStdio(["--db", world.server.db]);
    expect(await names(client)).toEqual(expectedTools(() => true));
    const created = await call(client, "createForm", { body: { name: "Made on stdio", slug: "stdio-made" } });
    expect(created.isError).toBe(false);
    const response = await api("/api/forms/stdio-made");
    expect(response.status).toBe(200);
    expect(((await response.json()) as { id: string }).id).toBe(created.json.id);
    expect((await call(client, "getForm", { id: "contact-mcp" })).json.id).toBe(formId);
  });

  test("serverInfo says the version `formsvc version` says, over stdio and over HTTP", async () => {
    const { version } = JSON.parse((await runCli(["version", "--json"])).stdout) as { version: string };
    const local = await overStdio(["--db", world.server.db]);
    expect(local.getServerVersion()).toEqual({ name: "formsvc", version });
    expect((await overHttp(world.key)).getServerVersion()).toEqual({ name: "formsvc", version });
  });

  test("remote, with --url and a read-only --key: the server's tools for that key, and its refusals", async () => {
    const client = await overStdio(["--url", world.server.url, "--key", readKey]);
    expect(await names(client)).toEqual(expectedTools((permission) => permission === "read"));
    expect((await call(client, "listForms")).json.forms.map((f: { slug: string }) => f.slug)).toContain("contact-mcp");
    const refused = await call(client, "deleteForm", { id: formId });
    expect(refused.isError).toBe(true);
    expect(refused.json.error.code).toBe("forbidden");
  });
});
