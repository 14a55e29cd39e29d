/** @jsxImportSource hono/jsx */
import { CopyButton } from "./layout.tsx";

/**
 * How to connect an AI assistant (an MCP client) with a key: the JSON its configuration takes, for a client
 * that speaks HTTP and for one that starts a command. The key just made is filled in; else a placeholder.
 */
export function AssistantSetup({ baseUrl, apiKey }: { baseUrl: string; apiKey: string | null }) {
  const shown = apiKey ?? "sk_live_…";
  const http = { mcpServers: { formsvc: { type: "http", url: `${baseUrl}/mcp`, headers: { Authorization: `Bearer ${shown}` } } } };
  const stdio = { mcpServers: { formsvc: { command: "formsvc", args: ["mcp"], env: { FORMSVC_URL: baseUrl, FORMSVC_KEY: shown } } } };
  return (
    <section class="card" id="assistant" aria-labelledby="assistant-title">
      <h2 id="assistant-title">Connect an AI assistant</h2>
      <p class="hint">
        formsvc speaks the Model Context Protocol at <code>{`${baseUrl}/mcp`}</code>: every API operation the key may call is a tool, so a read-only key gives
        an assistant read-only tools. Add this to the assistant's MCP configuration
        {apiKey ? " (it holds the key just made)" : ", with a key of its own in place of sk_live_…"}:
      </p>
      <pre id="mcp-http" tabindex={0} aria-label="MCP configuration over HTTP">
        {JSON.stringify(http, null, 2)}
      </pre>
      <CopyButton target="mcp-http" label="Copy HTTP configuration" />
      <p class="hint">For an assistant that starts a command instead, with the formsvc CLI installed:</p>
      <pre id="mcp-stdio" tabindex={0} aria-label="MCP configuration that starts formsvc mcp">
        {JSON.stringify(stdio, null, 2)}
      </pre>
      <CopyButton target="mcp-stdio" label="Copy command configuration" />
    </section>
  );
}
