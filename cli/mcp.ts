import type { Command } from "commander";
import type { Principal } from "../src/domain/types.ts";
import type { Services } from "../src/services/index.ts";
import { type ConnectionOptions, existingDatabase, openLocalServices, remoteUrl } from "./backend.ts";
import { CliError, EXIT } from "./errors.ts";
import type { Io } from "./io.ts";

// `formsvc mcp`: the MCP server on stdin and stdout (docs/cli.md, "MCP"). Nothing else may be written to stdout:
// it carries the protocol. Everything here loads when the command runs, the SDK included.

/** Resolves when stdin ends: the client has gone. */
const stdinEnded = () => new Promise<void>((resolve) => process.stdin.once("end", resolve).once("close", resolve));

/**
 * Remote mode: stdin and stdout relayed to the server's `POST /mcp`, with the key. The server lists the tools
 * its key may call and runs them: the same server, the same answers as an assistant connected over HTTP.
 */
async function relay(url: string, key: string): Promise<void> {
  const [{ StdioServerTransport }, { StreamableHTTPClientTransport }] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/stdio.js"),
    import("@modelcontextprotocol/sdk/client/streamableHttp.js"),
  ]);
  const endpoint = new URL("mcp", url.endsWith("/") ? url : `${url}/`);
  const upstream = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers: { authorization: `Bearer ${key}` } } });
  const local = new StdioServerTransport();
  local.onmessage = (message) => {
    upstream.send(message).catch((error: Error) => {
      // A request the server did not answer (unreachable, 401) gets an error answer, so that the client is not left waiting.
      if ("id" in message && "method" in message) {
        void local.send({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: `${endpoint.href}: ${error.message}` } });
      }
    });
  };
  upstream.onmessage = (message) => void local.send(message);
  await upstream.start();
  await local.start();
  await stdinEnded();
  await upstream.close();
}

/** The operator's services, seen by the app as a key: a token made for this process, never stored, stands for the operator. */
function asOperator(services: Services, principal: Principal, token: string): Services {
  const authenticate = (header: string | null) => (header === `Bearer ${token}` ? Promise.resolve(principal) : services.keys.authenticate(header));
  return { ...services, keys: { ...services.keys, authenticate } };
}

/**
 * Local mode: the MCP server on the database file, as the trusted operator (every tool), each call made by the
 * app in this process, through the API's routes, checks and handlers.
 */
async function serveLocal(location: string, globals: ConnectionOptions, io: Io): Promise<void> {
  const services = await openLocalServices(location, io.env);
  try {
    const [{ randomBytes }, { operator }, { createApp }, { RateLimiter }, { SETTINGS }, { createMcpServer }, { StdioServerTransport }] = await Promise.all([
      import("node:crypto"),
      import("../src/services/principal.ts"),
      import("../src/app.ts"),
      import("../src/http/rate-limit.ts"),
      import("../src/config-settings.ts"),
      import("../src/mcp/server.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
    ]);
    const account = await services.accounts.resolve(globals.account);
    const principal = operator(account.id, globals.test ? "test" : "live");
    const token = randomBytes(32).toString("base64url");
    const app = createApp({
      services: asOperator(services, principal, token),
      maxBody: Number(SETTINGS.maxBody.default),
      trustProxy: false,
      rateLimiter: new RateLimiter(0, 1),
      // stdout carries the protocol: only failures are told, on stderr.
      log: { request() {}, error: (message, error) => io.err(`formsvc: ${message}: ${String(error)}\n`) },
    });
    const server = createMcpServer({ principal, authorization: `Bearer ${token}`, base: services.urls.baseUrl(), fetch: (request) => app.fetch(request) });
    await server.connect(new StdioServerTransport());
    await stdinEnded();
    await server.close();
  } finally {
    await services.store.close();
  }
}

/** Runs the MCP server on stdio: remote (relayed to the server's /mcp) with --url, else local on the database file. */
export async function runMcp(globals: ConnectionOptions, io: Io): Promise<void> {
  const url = remoteUrl(globals, io.env);
  if (url) {
    const key = globals.key || io.env.FORMSVC_KEY;
    if (!key) throw new CliError("remote mode needs an API key: pass --key or set FORMSVC_KEY", EXIT.usage);
    if (!URL.canParse(url)) throw new CliError(`--url must be an address such as https://forms.example.com, not "${url}"`, EXIT.usage);
    return relay(url, key);
  }
  if (globals.key) throw new CliError("--key goes with --url (or FORMSVC_URL): without a server address the command works on the database file", EXIT.usage);
  return serveLocal(existingDatabase(globals.db || io.env.FORMSVC_DB || "./formsvc.db"), globals, io);
}

/** `formsvc mcp`. */
export function mcpCommand(program: Command, io: Io): void {
  program
    .command("mcp")
    .description("serve the Model Context Protocol on stdin/stdout: the API's operations as tools, for an AI assistant")
    .addHelpText(
      "after",
      `
Examples:
  formsvc mcp --db /var/lib/formsvc/formsvc.db
  formsvc mcp --url https://forms.example.com --key sk_live_...

Local mode works on the database file as its operator; remote mode (--url, --key) relays to the server's /mcp,
where the key's permissions decide which tools are listed. An assistant's configuration:
  {"mcpServers": {"formsvc": {"command": "formsvc", "args": ["mcp"], "env": {"FORMSVC_URL": "https://forms.example.com", "FORMSVC_KEY": "sk_live_..."}}}}
`,
    )
    .action(async () => runMcp(program.opts<ConnectionOptions>(), io));
}
