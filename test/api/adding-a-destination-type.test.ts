import { expect, test } from "bun:test";
import { join } from "node:path";
import { DESTINATION_TYPES } from "../../src/services/outbox/destination-types/index.ts";

// docs/architecture.md, "Adding a destination type": a type is one module and one line in the list of types.
// test/helpers/pager-destination.ts is a type formsvc does not have; test/helpers/pager-world.ts adds it to the
// list in a process of its own (so that no other test sees it), starts the real server there, and reports what
// the CLI, the API, the sender, the OpenAPI document, the forms file's schema, MCP and the dashboard show of it.

test("a destination type added in one module appears in the CLI, the API, the OpenAPI document, MCP, the forms file and the dashboard", async () => {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "..", "helpers", "pager-world.ts")], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  const seen = JSON.parse(stdout);
  const receiver = seen.api.listed[0]?.config.baseUrl;
  expect(seen).toEqual({
    cli: { helpNamesIt: true, added: { code: 0, stderr: expect.stringMatching(/^Made pager destination dst_/) } },
    api: {
      // Its secret is never shown; its own schema's messages name its keys.
      listed: [{ type: "pager", config: { channel: "front-desk", baseUrl: receiver } }],
      refused: {
        status: 400,
        body: {
          error: { code: "invalid_body", message: "config.pin is required for pager.", field: "config.pin" },
          errors: [{ code: "invalid_body", message: "config.pin is required for pager.", field: "config.pin" }],
        },
      },
      tested: { ok: true, error: null },
    },
    // Its sender is the one the dispatch ran, with the PIN saved at creation.
    sent: [{ path: "/channels/front-desk", authorization: "PIN 4321", text: "New submission to Contact\n\nemail: test@example.com" }],
    openapi: {
      config: {
        description: expect.any(String),
        type: "object",
        properties: {
          pin: { type: "string", minLength: 1, maxLength: 20, writeOnly: true },
          channel: { type: "string", minLength: 1, maxLength: 100 },
          baseUrl: { type: "string", minLength: 1, maxLength: 2048 },
        },
        required: ["pin", "channel"],
        additionalProperties: false,
      },
    },
    formsFile: { pin: expect.objectContaining({ pattern: "^\\$\\{([A-Za-z_][A-Za-z0-9_]*)\\}$", writeOnly: true }) },
    mcp: { types: [...DESTINATION_TYPES, "pager"] },
    dashboard: { addForm: true, inputs: [true, true], title: true, listedAs: true },
  });
  // Added there only: this process's list does not have it.
  expect(DESTINATION_TYPES).not.toContain("pager");
});
