import { OPERATIONS, requestFor } from "../api/index.ts";
import type { Operation } from "../api/operation.ts";
import type { Principal } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { buildDocument, DOCUMENT_SERVER } from "../openapi/document.ts";
import { hasPermission } from "../services/principal.ts";

// Every operation of the API that takes a key is a tool of the MCP server (docs/api.md, "MCP"): its name is the
// operationId, its input the path and query parameters by name and the JSON body under `body`, its schemas and
// description those of the OpenAPI document, itself made from the declarations. Nothing here names an operation.

type Json = Record<string, unknown>;

/** One tool: what `tools/list` shows, and the declaration a call runs. */
export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; properties: Record<string, Json>; required: string[]; additionalProperties: false };
  /** What an assistant may assume, from the method: a GET changes nothing, a DELETE removes. */
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: false };
  operation: Operation;
}

/** The schema with every `#/components/schemas/X` reference replaced by the component itself, so that a tool's schema stands alone. */
function inlined(schema: unknown, components: Record<string, unknown>, depth = 0): unknown {
  if (depth > 32 || schema === null || typeof schema !== "object") return schema;
  if (Array.isArray(schema)) return schema.map((item) => inlined(item, components, depth + 1));
  const { $ref, ...rest } = schema as Json;
  if (typeof $ref === "string" && $ref.startsWith("#/components/schemas/")) {
    return inlined({ ...(components[$ref.slice("#/components/schemas/".length)] as Json), ...rest }, components, depth + 1);
  }
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inlined(value, components, depth + 1)]));
}

let declared: Promise<Tool[]> | undefined;

/** Every tool the declarations give, in their order (made once, on first use: it needs zod and the OpenAPI document). */
export function declaredTools(): Promise<Tool[]> {
  declared ??= (async () => {
    const document = await buildDocument({ serverUrl: DOCUMENT_SERVER });
    const paths = document.paths as Record<string, Record<string, Json>>;
    const components = (document.components as { schemas: Record<string, unknown> }).schemas;
    return OPERATIONS.filter((operation) => operation.scope !== "public").map((operation) => {
      const described = paths[operation.path]![operation.method.toLowerCase()]!;
      const parameters = (described.parameters ?? []) as { name: string; in: string; required: boolean; description?: string; schema?: Json }[];
      const properties: Record<string, Json> = {};
      const required: string[] = [];
      for (const parameter of parameters) {
        if (parameter.in !== "path" && parameter.in !== "query") continue;
        properties[parameter.name] = { ...(parameter.schema ?? { type: "string" }), description: parameter.description };
        if (parameter.required) required.push(parameter.name);
      }
      const body = (described.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.["application/json"]?.schema;
      if (body) {
        properties.body = inlined(body, components) as Json;
        required.push("body");
      }
      return {
        name: operation.operationId,
        title: operation.summary,
        description: [operation.summary, described.description].filter(Boolean).join(". "),
        inputSchema: { type: "object" as const, properties, required, additionalProperties: false as const },
        annotations: {
          title: operation.summary,
          readOnlyHint: operation.method === "GET",
          destructiveHint: operation.method === "DELETE",
          idempotentHint: operation.method !== "POST",
          openWorldHint: false as const,
        },
        operation,
      };
    });
  })();
  return declared;
}

/** Whether the principal's key could call the operation: its permission, and for a form-level key an operation open to form keys. */
export function mayCall(principal: Principal, operation: Operation): boolean {
  if (!operation.permission || !hasPermission(principal, operation.permission)) return false;
  return principal.formId === null || operation.scope === "form";
}

/** The tools this principal may call: what `tools/list` shows it. */
export async function toolsFor(principal: Principal): Promise<Tool[]> {
  return (await declaredTools()).filter((tool) => mayCall(principal, tool.operation));
}

/** The tool of this name, whether the key may call it or not (a call it may not make is the API's 403, not "unknown tool"). */
export async function toolNamed(name: string): Promise<Tool | undefined> {
  return (await declaredTools()).find((tool) => tool.name === name);
}

const asText = (value: unknown): string | undefined =>
  typeof value === "string" ? value : typeof value === "number" || typeof value === "boolean" ? String(value) : undefined;

/**
 * The HTTP request a tool call makes: the declaration's method and path with the arguments' path parameters
 * filled in, its query parameters, and `body` as JSON. An argument of the wrong kind is the API's 400.
 */
export function toolRequest(tool: Tool, args: Record<string, unknown>, base: string, authorization: string): Request {
  const params: Record<string, string> = {};
  const query: Record<string, string> = {};
  const pathNames = [...tool.operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  for (const [name, value] of Object.entries(args)) {
    if (name === "body") continue;
    const text = asText(value);
    if (!(name in tool.inputSchema.properties)) throw new ApiError("invalid_parameter", `${tool.name} takes no argument ${name}.`, { field: name });
    if (text === undefined) throw new ApiError("invalid_parameter", `${name} must be a string, a number or a boolean.`, { field: name });
    if (pathNames.includes(name)) params[name] = text;
    else query[name] = text;
  }
  for (const name of pathNames) if (params[name] === undefined) throw new ApiError("invalid_parameter", `${name} is required.`, { field: name });
  const hasBody = Boolean(tool.operation.body);
  if (hasBody && args.body === undefined) throw new ApiError("invalid_body", "body is required: the operation's JSON body.", { field: "body" });
  const { method, path } = requestFor(tool.name, params, query);
  // Appended, not resolved against `base`: a base with a path of its own (behind a proxy) keeps it.
  const url = new URL(`${base.replace(/\/+$/, "")}${path}`);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const headers: Record<string, string> = { authorization, accept: "application/json" };
  if (hasBody) headers["content-type"] = "application/json";
  return new Request(url, { method, headers, body: hasBody ? JSON.stringify(args.body) : undefined });
}

/** What a tool call answers: the content of an MCP CallToolResult. */
export interface ToolResult {
  [key: string]: unknown;
  content: (
    | { type: "text"; text: string }
    | { type: "resource"; resource: { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string } }
  )[];
  isError: boolean;
}

const TEXTUAL = /^(text\/|application\/(json|x-ndjson|xml|javascript))/;

/**
 * The API's answer as a tool's result: JSON as its text; an export or a file as an embedded resource (text when
 * its type is textual, else base64); an error (4xx, 5xx) with isError and the API's error JSON as its text.
 */
export async function toolResult(tool: Tool, request: Request, response: Response): Promise<ToolResult> {
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const isError = response.status >= 400;
  if (response.status === 204) return { content: [{ type: "text", text: JSON.stringify({ status: 204, message: tool.operation.ok.description }) }], isError };
  if (type === "application/json" && (isError || tool.operation.ok.schema)) return { content: [{ type: "text", text: await response.text() }], isError };
  const uri = request.url;
  if (TEXTUAL.test(type)) return { content: [{ type: "resource", resource: { uri, mimeType: type, text: await response.text() } }], isError };
  const blob = Buffer.from(await response.arrayBuffer()).toString("base64");
  return { content: [{ type: "resource", resource: { uri, mimeType: type || "application/octet-stream", blob } }], isError };
}

/** A refusal before any request was made (an argument of the wrong kind), in the API's error shape. */
export function errorResult(error: ApiError): ToolResult {
  return { content: [{ type: "text", text: JSON.stringify(error.toBody()) }], isError: true };
}
