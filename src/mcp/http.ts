import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { Services } from "../services/index.ts";
import { createMcpServer } from "./server.ts";

/** What `/mcp` needs of the app: the services (to know the key) and the app's own fetch (to run each call). */
export interface McpEndpoint {
  services: Services;
  maxBody: number;
  fetch(request: Request): Promise<Response>;
}

/**
 * `POST /mcp`: MCP's Streamable HTTP transport, stateless (each request is whole in itself, answered as JSON),
 * for the key in its Authorization header: no key or a bad one is the API's 401. Tool calls are requests to
 * the same app, so they pass its router, its key check and its handlers as any API request does.
 */
export async function handleMcp(request: Request, url: URL, endpoint: McpEndpoint): Promise<Response> {
  const authorization = request.headers.get("authorization");
  const principal = await endpoint.services.keys.authenticate(authorization);
  const server = createMcpServer({ principal, authorization: authorization!, base: url.origin, fetch: endpoint.fetch });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: endpoint.maxBody,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request);
  } finally {
    await server.close();
  }
}
