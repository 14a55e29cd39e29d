import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect as connectSocket } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CliWorld, makeForm, startWorld } from "./world.ts";

// An id of `.`, `..` or nothing climbs the path a client builds (`/api/forms/F/submissions/..` is the form
// itself): the assistant's client, the CLI and a raw request must each leave the form and its posts alone.

let world: CliWorld;
let formId: string;
const clients: Client[] = [];

beforeAll(async () => {
  world = await startWorld();
  formId = await makeForm(world, "Kept", "kept-form");
  await world.post("kept-form", { email: "ann@example.com", message: "Still here" });
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  await world.stop();
});

/** The form and its submissions as the API shows them: what must not change. */
async function formState() {
  const headers = { authorization: `Bearer ${world.key}` };
  const form = await fetch(`${world.server.url}/api/forms/${formId}`, { headers });
  const list = await fetch(`${world.server.url}/api/forms/${formId}/submissions`, { headers });
  return { status: form.status, submissions: ((await list.json()) as { submissions: { data: unknown }[] }).submissions.map((s) => s.data) };
}
const intact = { status: 200, submissions: [{ email: "ann@example.com", message: "Still here" }] };

test("MCP tools called with `..`, `.` or an empty id are refused as the API refuses a bad parameter, and the form survives", async () => {
  const client = new Client({ name: "formsvc-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${world.server.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${world.key}` } } }),
  );
  clients.push(client);
  const calls: [string, Record<string, unknown>, string][] = [
    ["deleteSubmission", { id: formId, submissionId: ".." }, "submissionId"],
    ["deleteSubmission", { id: formId, submissionId: "." }, "submissionId"],
    ["deleteSubmission", { id: formId, submissionId: "" }, "submissionId"],
    ["deleteWebhook", { id: formId, webhookId: ".." }, "webhookId"],
    ["updateDestination", { id: formId, destinationId: "..", body: { name: "x" } }, "destinationId"],
    ["deleteForm", { id: ".." }, "id"],
  ];
  for (const [name, args, field] of calls) {
    const result = (await client.callTool({ name, arguments: args })) as { content: { text: string }[]; isError: boolean };
    expect({ name, isError: result.isError, error: JSON.parse(result.content[0]!.text).error }).toEqual({
      name,
      isError: true,
      error: { code: "invalid_parameter", message: `${field} must be an id: not empty, ".", or "..".`, field },
    });
  }
  expect(await formState()).toEqual(intact);
});

test("`submissions delete FORM ..` is refused in remote and local mode, and the form survives", async () => {
  for (const id of ["..", "."]) {
    const [local, remote] = await world.both(["submissions", "delete", formId, id]);
    const refused = { code: 2, stdout: "", stderr: `formsvc: submissionId must be an id: not empty, ".", or "..".\n` };
    expect({ local, remote }).toEqual({ local: refused, remote: refused });
  }
  expect(await formState()).toEqual(intact);
});

/** One request over a raw socket with its path sent as written, dot segments and all (as `curl --path-as-is` does). */
function rawRequest(method: string, path: string): Promise<string> {
  const { hostname, port } = new URL(world.server.url);
  return new Promise((resolve, reject) => {
    const socket = connectSocket(Number(port), hostname, () =>
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${world.key}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`),
    );
    let answer = "";
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

test("a raw DELETE of `/api/forms/F/submissions/..` is answered 404 and deletes nothing", async () => {
  for (const path of [`/api/forms/${formId}/submissions/..`, `/api/forms/${formId}/submissions/%2e%2e`, `/api/forms/${formId}/`]) {
    const answer = await rawRequest("DELETE", path);
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 404 Not Found");
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)).error.code).toBe("not_found");
  }
  expect(await formState()).toEqual(intact);
});

test("a site's form posting to the form's address with a trailing slash is still taken", async () => {
  await makeForm(world, "Slashed", "slashed-form");
  const answer = await fetch(`${world.server.url}/f/slashed-form/`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
    body: "email=bo%40example.com",
  });
  expect(answer.status).toBe(200);
});
