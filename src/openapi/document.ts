import { z } from "zod";
import pkg from "../../package.json" with { type: "json" };
import { ERROR_STATUS } from "../errors.ts";
import { SUBMISSION_BODY } from "./descriptions.ts";
import { EXAMPLES } from "./examples.ts";
import { OPERATIONS } from "../api/index.ts";
import type { Operation, RequestBody, Scope } from "../api/operation.ts";
import { PATH_PARAMETERS, queryParameters } from "../api/query.ts";
import { responseSchemas } from "./schemas.ts";

type Json = Record<string, unknown>;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const STATUS_TEXT: Record<number, string> = {
  400: "Bad input: the body, a parameter or the submission.",
  401: "No key, or a malformed, unknown or revoked one.",
  403: "Refused: the key lacks the permission, or a form-level key used outside its form; for a submission, the origin or an inactive form.",
  404: "No such resource, or another account's or mode's.",
  409: "A conflict: the slug is taken (a form), or the Idempotency-Key was used before with other fields (a submission).",
  413: "The body is over the server's --max-body.",
  415: "A body that is not JSON (or, for a submission, urlencoded or multipart).",
  429: "Too many submissions from this address to this form.",
  500: "Our failure: never a stack trace or SQL.",
  502: "payment_unavailable: Stripe refused or did not answer; the submission is stored, awaiting its payment (docs/api.md, Payments).",
  503: "The database does not answer; try again.",
};

/** The errors an operation may answer with, beyond its success: from what it takes and who may call it. */
function errorStatuses(operation: Operation): number[] {
  const statuses = [...(operation.errors ?? []), 500, 503];
  if (operation.scope !== "public") statuses.push(401, 403);
  if (operation.path.includes("{")) statuses.push(404);
  if (operation.query?.length || operation.body) statuses.push(400);
  if (operation.body) statuses.push(413, 415);
  if (operation.scope === "public" && operation.method === "POST") statuses.push(400, 403, 409, 413, 415, 429);
  if (operation.scope === "public" && operation.method === "OPTIONS") statuses.push(403);
  return [...new Set(statuses)].toSorted((a, b) => a - b);
}

/** An error response: the one error shape, its code narrowed to the codes of that status. */
function errorResponse(status: number, html: boolean): Json {
  const codes = Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code);
  const headers: Json = {};
  if (status === 401) headers["WWW-Authenticate"] = { description: "Bearer", schema: { type: "string" } };
  if (status === 429) headers["Retry-After"] = { description: "Seconds to wait.", schema: { type: "integer", minimum: 1 } };
  const example = { code: codes[0], message: EXAMPLES.errorMessages[status] ?? "…" };
  const content: Json = {
    "application/json": {
      schema: { allOf: [ref("Error"), { type: "object", properties: { error: { type: "object", properties: { code: { enum: codes } } } } }] },
      example: { error: example, errors: [example] },
    },
  };
  if (html) content["text/html"] = { schema: { type: "string", description: "What a browser gets: a small page that says what went wrong and links back." } };
  return { description: `${STATUS_TEXT[status]} Codes: ${codes.join(", ")}.`, ...(Object.keys(headers).length ? { headers } : {}), content };
}

/** The header a public post may send so that its retries store once (docs/api.md, "Retries: Idempotency-Key"). */
const IDEMPOTENCY_KEY: Json = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Any 1 to 200 printable ASCII characters (a UUID is usual), new for each submission. A repeat with the same key to the same form within 24 hours gets the first answer again (with Idempotent-Replayed: true) and stores nothing; the same key with other fields is 409 idempotency_key_reused.",
  schema: { type: "string", minLength: 1, maxLength: 200 },
};

const SECURITY: Record<Scope, Json[]> = {
  account: [{ liveKey: [] }, { testKey: [] }],
  form: [{ liveKey: [] }, { testKey: [] }, { formKey: [] }],
  public: [],
};

function operationObject(operation: Operation, query: Awaited<ReturnType<typeof queryParameters>>, paramSchemas: Map<string, Json>): Json {
  const pathNames = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const parameters = [
    ...pathNames.map((name) => ({ name, in: "path", required: true, description: PATH_PARAMETERS[name], schema: { type: "string" } })),
    ...(operation.query ?? []).map((name) => ({
      name: (query[name] as { name?: string }).name ?? name,
      in: "query",
      required: false,
      description: operation.queryNotes?.[name] ?? query[name].description,
      schema: paramSchemas.get(name),
    })),
    ...(operation.scope === "public" && operation.method === "POST" ? [IDEMPOTENCY_KEY] : []),
  ];
  const { ok } = operation;
  const okHeaders = Object.fromEntries(Object.entries(ok.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: "string" } }]));
  const okExample = ok.example ?? EXAMPLES.responses[ok.schema ?? ""];
  const okContent = ok.schema
    ? { "application/json": { schema: ref(ok.schema), ...(okExample ? { example: okExample } : {}) } }
    : ok.media &&
      Object.fromEntries(
        Object.entries(ok.media).map(([type, media]) => [
          type,
          {
            schema:
              typeof media === "string" ? { type: "string", description: media } : { type: "array", items: ref(media.arrayOf), description: media.description },
          },
        ]),
      );
  const responses: Json = {
    [ok.status]: { description: ok.description, ...(ok.headers ? { headers: okHeaders } : {}), ...(okContent ? { content: okContent } : {}) },
  };
  if (operation.scope === "public" && operation.method === "POST") {
    responses[303] = {
      description: "Stored (asked by a browser): to _next, else the form's redirectUrl, else /thanks.",
      headers: { Location: { schema: { type: "string" } } },
    };
  }
  for (const status of errorStatuses(operation))
    responses[status] = errorResponse(status, operation.scope === "public" && (operation.method === "POST" || "text/html" in (operation.ok.media ?? {})));
  const formKey = operation.scope === "form" ? " A form-level key (fk_) of this form may call it, with that permission." : "";
  const permission = operation.permission ? ` Needs the \`${operation.permission}\` permission.${formKey}` : "";
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    description: `${operation.description ?? ""}${permission}`.trim() || undefined,
    tags: [operation.tag],
    security: SECURITY[operation.scope],
    ...(parameters.length ? { parameters } : {}),
    ...(operation.body
      ? { requestBody: { required: true, content: { "application/json": { schema: ref(operation.body.name), example: operation.body.example } } } }
      : {}),
    ...(operation.scope === "public" && operation.method === "POST" ? { requestBody: submissionBody() } : {}),
    responses,
  };
}

function submissionBody(): Json {
  const fields = { type: "object", additionalProperties: true, description: SUBMISSION_BODY };
  return {
    required: true,
    content: {
      "application/json": { schema: fields, example: EXAMPLES.submission },
      "application/x-www-form-urlencoded": { schema: fields },
      "multipart/form-data": { schema: fields },
    },
  };
}

/** The JSON Schemas of the named zod schemas, as components (their own $schema and $id dropped, $refs between them kept). */
function componentSchemas(
  schemas: Record<string, z.ZodType>,
  io: "input" | "output",
  notes: Record<string, Record<string, string>> = {},
): Record<string, Json> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  const { schemas: out } = z.toJSONSchema(registry, { target: "draft-2020-12", io, unrepresentable: "any", uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(out).map(([id, { $schema: _, $id: __, ...rest }]) => {
      // A body that is a union by one key (a destination's type) has its fields in each of its options.
      const options = ((rest.oneOf ?? rest.anyOf ?? [rest]) as Json[]).map((option) => (option.properties ?? {}) as Record<string, Json>);
      for (const [name, note] of Object.entries(notes[id] ?? {})) {
        // A note on a field the schema no longer has is a note that went stale.
        if (!options.some((properties) => properties[name])) throw new Error(`the notes of ${id} speak of ${name}, which the schema does not have`);
        for (const properties of options) if (properties[name]) properties[name] = { description: note, ...properties[name] };
      }
      return [id, rest as Json];
    }),
  );
}

/** The server named in docs/openapi.json, the copy in the repository: a server started with the defaults. */
export const DOCUMENT_SERVER = "http://localhost:8080";

/** The request bodies the operations declare, by name; two operations that name one body must declare the same. */
async function requestBodies(operations: readonly Operation[]): Promise<{ schemas: Record<string, z.ZodType>; notes: Record<string, Record<string, string>> }> {
  const declared = new Map<string, RequestBody>();
  for (const { body, operationId } of operations) {
    if (!body) continue;
    const before = declared.get(body.name);
    if (before && before.schema !== body.schema) throw new Error(`${operationId} declares a body ${body.name} other than the one of that name`);
    declared.set(body.name, body);
  }
  const schemas: Record<string, z.ZodType> = {};
  const notes: Record<string, Record<string, string>> = {};
  for (const [name, body] of declared) {
    schemas[name] = await body.schema();
    if (body.notes) notes[name] = body.notes;
  }
  return { schemas, notes };
}

/**
 * The OpenAPI 3.1 document of the API, generated from the declarations (src/api/) and the zod schemas that
 * validate requests and describe answers. `operations`: the declarations to describe (all of them but in tests).
 */
export async function buildDocument(options: { serverUrl: string; operations?: readonly Operation[] }): Promise<Json> {
  const operations = options.operations ?? OPERATIONS;
  const requests = await requestBodies(operations);
  const query = await queryParameters();
  const paramSchemas = new Map(
    Object.entries(query).map(([name, { schema }]) => {
      const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
      return [name, rest as Json];
    }),
  );
  const paths: Record<string, Json> = {};
  const defined: Record<string, z.ZodType> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method.toLowerCase()] = operationObject(operation, query, paramSchemas);
    if (operation.ok.define && operation.ok.schema) defined[operation.ok.schema] = operation.ok.define(z);
  }
  const bearer = (description: string, format: string) => ({ type: "http", scheme: "bearer", bearerFormat: format, description });
  return {
    openapi: "3.1.0",
    info: {
      title: "formsvc API",
      version: pkg.version,
      description:
        "The management API of a formsvc server and its public submission endpoint. Walkthroughs and the decisions behind the answers are in docs/api.md; every answer of the test suite is checked against this document.",
    },
    servers: [{ url: options.serverUrl }],
    // In the order a reader meets them in the declarations, then the routes that are not resources.
    tags: [...new Set([...operations.map((operation) => operation.tag), "Operations"])].map((name) => ({ name })),
    paths: { ...paths, ...operationsPaths() },
    components: {
      schemas: { ...componentSchemas(requests.schemas, "input", requests.notes), ...componentSchemas({ ...responseSchemas(), ...defined }, "output") },
      securitySchemes: {
        liveKey: bearer("A live key (sk_live_…): sees and makes live forms only.", "sk_live_…"),
        testKey: bearer("A test key (sk_test_…): sees and makes test forms only; a test form never sends email.", "sk_test_…"),
        formKey: bearer("A form-level key (fk_…): reaches only its form's submissions and the paths below them, with its own permissions.", "fk_…"),
      },
    },
  };
}

/** The routes that are not resources: health, metrics and this document. */
function operationsPaths(): Record<string, Json> {
  const unavailable = errorResponse(503, false);
  return {
    "/healthz": {
      get: {
        operationId: "health",
        summary: "Health",
        description: "200 when the database answers a read.",
        tags: ["Operations"],
        security: [],
        responses: { 200: { description: "Healthy.", content: { "application/json": { schema: ref("Health") } } }, 503: unavailable },
      },
    },
    "/metrics": {
      get: {
        operationId: "metrics",
        summary: "Prometheus metrics",
        description: "Only with --metrics (or on --metrics-listen): requests by route and status, submissions, spam, outbox depth, latency.",
        tags: ["Operations"],
        security: [],
        responses: { 200: { description: "Prometheus text format.", content: { "text/plain": { schema: { type: "string" } } } } },
      },
    },
    "/mcp": {
      post: {
        operationId: "mcp",
        summary: "Model Context Protocol",
        description:
          "MCP's Streamable HTTP transport, stateless, answered as JSON: every operation of this document that takes a key is a tool (name: its operationId; input: its path and query parameters by name, its JSON body under body), listed as the key's permissions allow; resources are the forms and each form's recent submissions. A call the key may not make is a result with isError and the API's error JSON. See docs/api.md.",
        tags: ["Operations"],
        security: SECURITY.form,
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", description: "A JSON-RPC message of MCP." } } } },
        responses: {
          200: { description: "The JSON-RPC answer.", content: { "application/json": { schema: { type: "object" } } } },
          202: { description: "A notification, taken." },
          401: errorResponse(401, false),
        },
      },
    },
    "/api/formsvc.schema.json": {
      get: {
        operationId: "formsFileSchema",
        summary: "The forms file's JSON Schema",
        description:
          "The schema of formsvc.json, which formsvc pull writes and formsvc plan and apply read (docs/cli.md); secrets are references to environment variables, written as the name in braces after a dollar sign.",
        tags: ["Operations"],
        security: [],
        responses: { 200: { description: "A JSON Schema (draft 2020-12).", content: { "application/schema+json": { schema: { type: "object" } } } } },
      },
    },
    "/api/openapi.json": {
      get: {
        operationId: "openapi",
        summary: "This document",
        tags: ["Operations"],
        security: [],
        responses: { 200: { description: "The OpenAPI 3.1 document.", content: { "application/json": { schema: { type: "object" } } } } },
      },
    },
  };
}
