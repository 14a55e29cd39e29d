// Run by test/api/adding-a-destination-type.test.ts in a process of its own: the pager type (pager-destination.ts)
// is added to the list of destination types with one line, before anything reads the list, and everything the
// project derives from the list is then asked what it shows. Prints what it saw as JSON.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { DestinationKind } from "../../src/services/outbox/destination-types/kind.ts";
import { DESTINATION_KINDS } from "../../src/services/outbox/destination-types/list.ts";
import { pager } from "./pager-destination.ts";

// The one line a new type adds to src/services/outbox/destination-types/list.ts.
(DESTINATION_KINDS as readonly DestinationKind[] as DestinationKind[]).push(pager);

const { startServerInProcess } = await import("../cli/world.ts");
const { runInProcess } = await import("./fake-io.ts");
const { destinationsSection } = await import("../../src/dashboard/pages/destinations.tsx");

type Json = Record<string, any>;
const received: { path: string; authorization: string | null; body: Json }[] = [];
const receiver = Bun.serve({
  port: 0,
  async fetch(request) {
    received.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), body: await request.json() });
    return Response.json({ ok: true });
  },
});
const server = await startServerInProcess({ rateLimit: "0", webhooksAllowPrivate: "true" });
try {
  const key = (await runInProcess(["keys", "create", "--db", server.db])).stdout.trim();
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const form = (await api("POST", "/api/forms", { name: "Contact" })).body;
  const remote = { FORMSVC_URL: server.url, FORMSVC_KEY: key };

  // The CLI: its help names the type, and `destinations add` makes one (remote mode, the API's own request).
  const help = await runInProcess(["destinations", "add", "--help"]);
  const config = JSON.stringify({ pin: "4321", channel: "front-desk", baseUrl: `http://127.0.0.1:${receiver.port}` });
  const configFile = join(server.dir, "pager.json");
  writeFileSync(configFile, config);
  const added = await runInProcess(["destinations", "add", form.slug, "pager", "--config-file", configFile], { env: remote });
  const id = added.stdout.trim();
  // The API: listed without its secret, refused with a message naming the type's key, and sent by its sender.
  const listed = (await api("GET", `/api/forms/${form.id}/destinations`)).body.destinations;
  const refused = await api("POST", `/api/forms/${form.id}/destinations`, { type: "pager", config: { channel: "x" } });
  const tested = (await api("POST", `/api/forms/${form.id}/destinations/${id}/test`)).body;
  // The OpenAPI document and the forms file's JSON Schema: one more option of the union, its secret writeOnly.
  const document = (await (await fetch(`${server.url}/api/openapi.json`)).json()) as Json;
  const documented = document.components.schemas.DestinationCreate.oneOf.find((option: Json) => option.properties.type.const === "pager");
  const file = (await (await fetch(`${server.url}/api/formsvc.schema.json`)).json()) as Json;
  const inFile = file.properties.forms.additionalProperties.properties.destinations.items.oneOf.find(
    (option: Json) => option.properties.type.const === "pager",
  );
  // MCP: the createDestination tool's input, as a client lists it.
  const client = new Client({ name: "pager-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const tool = (await client.listTools()).tools.find((candidate) => candidate.name === "createDestination")!;
  const toolBody = (tool.inputSchema.properties as Json).body;
  await client.close();
  // The dashboard: the Destinations section of the form's settings, as an owner sees it.
  const session = { user: { role: "owner" }, csrfToken: "csrf", viaLink: false } as never;
  const section = destinationsSection({
    session,
    form: form as never,
    destinations: listed,
    circuits: [],
    deliveries: [],
    tested: null,
    errors: {},
  });
  const html = String(section.body);

  console.log(
    JSON.stringify({
      cli: { helpNamesIt: help.stdout.includes("pager"), added: { code: added.code, stderr: added.stderr } },
      api: { listed: listed.map((d: Json) => ({ type: d.type, config: d.config })), refused, tested: { ok: tested.ok, error: tested.error } },
      sent: received.map((r) => ({ path: r.path, authorization: r.authorization, text: r.body.text })),
      openapi: { config: documented?.properties.config },
      formsFile: { pin: inFile?.properties.config.properties.pin },
      mcp: { types: toolBody.oneOf.map((option: Json) => option.properties.type.const) },
      dashboard: {
        addForm: html.includes('<input type="hidden" name="type" value="pager"'),
        inputs: ["pager.pin", "pager.channel"].map((name) => html.includes(`name="${name}"`)),
        title: html.includes("<summary>Pager</summary>"),
        listedAs: html.includes(">Pager</td>"),
      },
    }),
  );
} finally {
  receiver.stop(true);
  await server.stop();
}
