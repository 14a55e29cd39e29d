import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { OPERATIONS } from "../../src/api/index.ts";
import type { Operation } from "../../src/api/operation.ts";
import { buildDocument } from "../../src/openapi/document.ts";
import { BASE } from "./app.ts";

// Every answer the API tests receive goes through checkResponse (test/helpers/app.ts calls it on each request):
// the status must be one the OpenAPI document lists for that operation, the media type one it lists for that
// status, and a JSON body must match that response's schema. An answer that drifts from the document fails the
// test that received it, whichever test that is.

type Json = Record<string, any>;
const DOC_ID = "https://formsvc.test/openapi.json";

interface State {
  document: Json;
  ajv: Ajv2020;
  templates: { path: string; pattern: RegExp; params: number }[];
}

// Built on first use (the schemas load zod on first use, so the build is async), once per list of operations:
// the API's, or the API's and one a test adds.
const states = new Map<readonly Operation[], Promise<State>>();
const validators = new Map<string, ValidateFunction>();

function load(operations: readonly Operation[] = OPERATIONS): Promise<State> {
  let state = states.get(operations);
  if (!state) {
    state = build(operations);
    states.set(operations, state);
  }
  return state;
}

async function build(operations: readonly Operation[]): Promise<State> {
  const document = (await buildDocument({ serverUrl: BASE, operations })) as Json;
  // Not strict: the schema being added is the whole document, whose OpenAPI keywords ajv does not know.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOC_ID });
  const templates = Object.keys(document.paths)
    .map((path) => ({
      path,
      pattern: new RegExp(`^${path.replace(/\{\w+\}/g, "[^/]+")}/?$`),
      params: (path.match(/\{/g) ?? []).length,
    }))
    // A literal segment wins over a parameter: /submissions/export is not a submission called "export".
    .toSorted((a, b) => a.params - b.params);
  return { document, ajv, templates };
}

const pointer = (...parts: string[]) => parts.map((p) => p.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

async function validate(ref: string, body: unknown, operations?: readonly Operation[]): Promise<string | null> {
  const { ajv } = await load(operations);
  // The API's own validators are kept; those of a document with a test's operation are made each time.
  let check = operations ? undefined : validators.get(ref);
  if (!check) {
    check = ajv.compile({ $ref: `${DOC_ID}#/${ref}` });
    if (!operations) validators.set(ref, check);
  }
  if (check(body)) return null;
  return ajv.errorsText(check.errors, { separator: "\n  " });
}

const ERROR_SCHEMA = pointer("components", "schemas", "Error");

/** Why `value` does not match the schema at `path` in the document (its JSON pointer's parts), or null when it does. */
export const schemaProblem = (path: string[], value: unknown): Promise<string | null> => validate(pointer(...path), value);

/** Throws when `response` (to `method` `url`) is not what the OpenAPI document (of `operations`: the API's by default) says that operation answers. */
export async function checkResponse(method: string, url: string, response: Response, operations?: readonly Operation[]): Promise<void> {
  const { document, templates } = await load(operations);
  const path = new URL(url).pathname;
  const where = `${method} ${path} answered ${response.status}`;
  const text = method === "HEAD" ? "" : await response.clone().text();
  const media = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const parse = () => {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error(`${where} with a body that is not JSON, though its type says so: ${text.slice(0, 200)}`);
    }
  };
  const template = templates.find((t) => t.pattern.test(path));
  const verb = method === "HEAD" ? "get" : method.toLowerCase();
  const operation = template && document.paths[template.path][verb];
  if (!operation) {
    // No operation: an unknown path or method. Outside /api that is a page (the dashboard, /thanks), not the API.
    if (!template && !path.startsWith("/api/")) return;
    if (![404, 405].includes(response.status)) throw new Error(`${where}, but the OpenAPI document has no such operation`);
    if (media === "application/json") {
      const problem = await validate(ERROR_SCHEMA, parse(), operations);
      if (problem) throw new Error(`${where} with a body that is not the error shape:\n  ${problem}`);
    }
    return;
  }
  const answer = operation.responses[String(response.status)];
  if (!answer) throw new Error(`${where}, a status the OpenAPI document does not list for ${method} ${template!.path}`);
  for (const header of Object.keys(answer.headers ?? {})) {
    if (!response.headers.has(header)) throw new Error(`${where} without the ${header} header that the OpenAPI document promises`);
  }
  if (text === "") return;
  const content = answer.content ?? {};
  // A downloaded file keeps the type it was uploaded with: the document says application/octet-stream for "any".
  const documented = media in content ? media : "application/octet-stream" in content ? "application/octet-stream" : null;
  if (!documented)
    throw new Error(
      `${where} with ${media || "no content type"}, which the OpenAPI document does not list (it lists ${Object.keys(content).join(", ") || "no body"})`,
    );
  if (documented !== "application/json") return;
  const problem = await validate(
    pointer("paths", template!.path, verb, "responses", String(response.status), "content", "application/json", "schema"),
    parse(),
    operations,
  );
  if (problem) throw new Error(`${where} with a body that does not match the OpenAPI document:\n  ${problem}\n  body: ${text.slice(0, 500)}`);
}
