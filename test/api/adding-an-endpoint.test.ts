import { expect, test } from "bun:test";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { OPERATIONS } from "../../src/api/index.ts";
import { FORM, operation, type Operation } from "../../src/api/operation.ts";
import { json } from "../../src/http/respond.ts";
import { lazySchema, parseBody } from "../../src/lib/validate.ts";
import { buildDocument } from "../../src/openapi/document.ts";
import { localBackend, remoteBackend } from "../../cli/backend.ts";
import { ApiClient } from "../../cli/client.ts";
import { BASE, testApp } from "../helpers/app.ts";
import { httpRecorder, jsonAnswer } from "../helpers/http-recorder.ts";
import { apiError } from "./scenario.ts";
import { protectedRoutes, runCommonRouteTests } from "./security.ts";

// docs/architecture.md, "Adding an endpoint": an operation is its service, one declaration, a command and its
// tests. This file declares one that the API does not have (a note on a form), in this test only, and shows
// that the router, the OpenAPI document, the security suite's table and the CLI's backends take it from the
// declaration with no other edit.

const noteBody = lazySchema((z) => z.strictObject({ text: z.string().min(1).max(500) }));

const addFormNote = operation({
  method: "POST",
  path: `${FORM}/notes`,
  operationId: "addFormNote",
  summary: "Add a note to a form",
  tag: "Notes",
  scope: "form",
  permission: "write",
  body: { name: "FormNote", schema: noteBody, example: { text: "Called back" }, notes: { text: "What happened, 1 to 500 characters." } },
  ok: {
    status: 201,
    description: "The note.",
    schema: "Note",
    define: (z) => z.object({ formId: z.string(), text: z.string() }),
    example: { formId: "frm_0f3k9x2m7q8r4t6v1w5y0z3a", text: "Called back" },
  },
  async handler(ctx) {
    const form = await ctx.services.forms.findRow(ctx.principal, ctx.params.id!);
    const { text } = parseBody(await noteBody(), ctx.body);
    return json(201, { formId: form.id, text });
  },
});

const operations: readonly Operation[] = [...OPERATIONS, addFormNote];

test("the router runs it behind its key check, and its answers match the document made with it", async () => {
  const t = await testApp({ operations });
  try {
    const account = await t.account();
    const form = await account.form();
    const writer = await account.key({ permissions: ["write"] });
    const reader = await account.key({ permissions: ["read"] });
    const post = (key: string | undefined, body: unknown) => t.request("POST", `/api/forms/${form.slug}/notes`, { key, body });
    const answer = async (response: Response) => ({ status: response.status, body: await response.json() });
    expect(await answer(await post(writer, { text: "Called back" }))).toEqual({ status: 201, body: { formId: form.id, text: "Called back" } });
    expect(await answer(await post(undefined, { text: "x" }))).toEqual({ status: 401, body: apiError("unauthorized") });
    expect(await answer(await post(reader, { text: "x" }))).toEqual({ status: 403, body: apiError("forbidden") });
    expect((await answer(await post(writer, { text: "" }))).status).toBe(400);
  } finally {
    t.close();
  }
});

test("the OpenAPI document describes it: path, tag, security, body with its example and notes, answer", async () => {
  const document = (await buildDocument({ serverUrl: BASE, operations })) as Record<string, any>;
  await SwaggerParser.validate(structuredClone(document) as never);
  const described = document.paths["/api/forms/{id}/notes"].post;
  expect(described).toMatchObject({
    operationId: "addFormNote",
    tags: ["Notes"],
    security: [{ liveKey: [] }, { testKey: [] }, { formKey: [] }],
    requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/FormNote" }, example: { text: "Called back" } } } },
    responses: { 201: { content: { "application/json": { schema: { $ref: "#/components/schemas/Note" } } } } },
  });
  expect(Object.keys(described.responses)).toEqual(["201", "400", "401", "403", "404", "413", "415", "500", "503"]);
  expect(document.components.schemas.FormNote.properties.text.description).toBe("What happened, 1 to 500 characters.");
  expect(document.tags.map((tag: { name: string }) => tag.name).slice(-2)).toEqual(["Notes", "Operations"]);
  // Declared in this test only: the API's own document does not have it.
  expect((await buildDocument({ serverUrl: BASE })).paths).not.toHaveProperty("/api/forms/{id}/notes");
});

test("the security suite's table holds it, with its declared example as the body", () => {
  const route = protectedRoutes(operations).find((r) => r.declaredPath === "/api/forms/{id}/notes");
  expect(route).toEqual({
    method: "POST",
    path: "/api/forms/:id/notes",
    declaredPath: "/api/forms/{id}/notes",
    permission: "write",
    formKeys: true,
    body: { text: "Called back" },
    okStatus: 201,
  });
});

// Every common case of the security suite, on the operation declared above.
runCommonRouteTests(protectedRoutes([addFormNote])[0]!, operations);

test("the remote CLI sends the declared request: method, path with its parameter, the key, the JSON body", async () => {
  const server = httpRecorder();
  server.on("POST", "/api/forms/contact%20us/notes", jsonAnswer(201, { formId: "frm_1", text: "Called back" }));
  const backend = await remoteBackend(new ApiClient(server.url, "sk_live_recorded"), operations);
  try {
    expect(await backend.call("addFormNote", { params: { id: "contact us" }, body: { text: "Called back" } })).toEqual({
      formId: "frm_1",
      text: "Called back",
    });
    server.verify();
    expect(server.requests).toEqual([
      {
        method: "POST",
        path: "/api/forms/contact%20us/notes",
        query: {},
        authorization: "Bearer sk_live_recorded",
        contentType: "application/json",
        body: { text: "Called back" },
      },
    ]);
  } finally {
    await backend.close();
    server.stop();
  }
});

test("the local CLI runs the declared handler on the database file, as the operator", async () => {
  const t = await testApp();
  try {
    const form = await (await t.account()).form();
    const backend = await localBackend(join(t.dir, "formsvc.db"), {}, {}, operations);
    try {
      expect(await backend.call("addFormNote", { params: { id: form.slug }, body: { text: "Called back" } })).toEqual({ formId: form.id, text: "Called back" });
      await expect(backend.call("addFormNote", { params: { id: form.slug }, body: { text: "" } })).rejects.toMatchObject({
        code: "invalid_body",
        field: "text",
      });
    } finally {
      await backend.close();
    }
  } finally {
    t.close();
  }
});
