import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Principal } from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { buildInfo } from "../lib/release.ts";
import { errorResult, mayCall, type Tool, toolNamed, toolRequest, toolResult, toolsFor } from "./tools.ts";

/** How the MCP server reaches the API: every call is a request to the same app (or server) the HTTP API is. */
export interface ApiAccess {
  /** The key's principal: what tools/list shows and which resources are listed. */
  principal: Principal;
  /** The Authorization header every call carries. */
  authorization: string;
  /** The address requests are made against (`http://host:port`). */
  base: string;
  /** Answers one request of the API: the app's own fetch, or a real one to a server. */
  fetch(request: Request): Promise<Response>;
}

/** Recent submissions: how many a submissions resource holds. */
const RECENT = 20;
const SCHEME = "formsvc://forms";

/** Runs a tool: the request goes through the API's own routes, its key check and its handler. */
async function callTool(access: ApiAccess, tool: Tool, args: Record<string, unknown>) {
  let request: Request;
  try {
    request = toolRequest(tool, args, access.base, access.authorization);
  } catch (error) {
    if (error instanceof ApiError) return errorResult(error);
    throw error;
  }
  return toolResult(tool, request, await access.fetch(request.clone()));
}

/** Reads a resource through its tool: its text is the API's JSON, its failure the API's message. */
async function readThrough(access: ApiAccess, uri: string, name: string, args: Record<string, unknown>) {
  const tool = (await toolNamed(name))!;
  const result = await callTool(access, tool, args);
  const first = result.content[0]!;
  const text = first.type === "text" ? first.text : "";
  if (result.isError) throw new McpError(ErrorCode.InvalidParams, text);
  return { contents: [{ uri, mimeType: "application/json", text }] };
}

/**
 * An MCP server for one key: its tools are the API's operations the key may call, its resources the forms
 * and each form's recent submissions. Tools and resources are answered by the API itself (docs/api.md, "MCP").
 */
export function createMcpServer(access: ApiAccess): Server {
  const server = new Server(
    { name: "formsvc", version: buildInfo().version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        "formsvc is a form backend. Each tool is one operation of its REST API (docs/api.md): forms, submissions, webhooks, keys. A form is named by its id (frm_…) or slug. Results are the API's JSON.",
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: (await toolsFor(access.principal)).map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = await toolNamed(request.params.name);
    if (!tool) return errorResult(new ApiError("not_found", `No tool ${request.params.name}: tools/list names every tool.`));
    return callTool(access, tool, request.params.arguments ?? {});
  });
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      { uriTemplate: `${SCHEME}/{form}`, name: "form", title: "A form", mimeType: "application/json" },
      { uriTemplate: `${SCHEME}/{form}/submissions`, name: "submissions", title: `A form's ${RECENT} most recent submissions`, mimeType: "application/json" },
    ],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const submissions = (form: { id: string; name: string }) => ({
      uri: `${SCHEME}/${form.id}/submissions`,
      name: `${form.name}: recent submissions`,
      mimeType: "application/json",
    });
    const { principal } = access;
    if (principal.formId) return { resources: [submissions({ id: principal.formId, name: principal.formId })] };
    const listForms = (await toolNamed("listForms"))!;
    if (!mayCall(principal, listForms.operation)) return { resources: [] };
    const { contents } = await readThrough(access, SCHEME, "listForms", {});
    const { forms } = JSON.parse(contents[0]!.text) as { forms: { id: string; name: string }[] };
    return {
      resources: [
        { uri: SCHEME, name: "Forms", mimeType: "application/json" },
        ...forms.flatMap((form) => [{ uri: `${SCHEME}/${form.id}`, name: form.name, mimeType: "application/json" }, submissions(form)]),
      ],
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    if (uri === SCHEME) return readThrough(access, uri, "listForms", {});
    const match = /^formsvc:\/\/forms\/([^/]+)(\/submissions)?$/.exec(uri);
    if (!match) throw new McpError(ErrorCode.InvalidParams, `No resource ${uri}: resources/list names them.`);
    const id = decodeURIComponent(match[1]!);
    return match[2] ? readThrough(access, uri, "listSubmissions", { id, limit: RECENT }) : readThrough(access, uri, "getForm", { id });
  });
  return server;
}
