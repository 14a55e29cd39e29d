import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020 from "ajv/dist/2020.js";
import { buildDocument, DOCUMENT_SERVER } from "../../src/openapi/document.ts";
import { LIST_QUERY, listQuery } from "../../src/api/submissions.ts";
import { parseQuery } from "../../src/api/query.ts";
import { BASE, registeredRoutes } from "../helpers/app.ts";
import { ROOT } from "../helpers/cli.ts";
import { typesHeader } from "../generated/header.ts";
import { checkResponse, schemaProblem } from "../helpers/openapi.ts";

const document = (await buildDocument({ serverUrl: BASE })) as Record<string, any>;

test("the document is a valid OpenAPI 3.1 document", async () => {
  // validate() dereferences in place: it gets a copy.
  await SwaggerParser.validate(structuredClone(document) as never);
  expect(document.openapi).toBe("3.1.0");
});

test("docs/openapi.json is the document the server serves (npm run openapi writes it and the client types)", async () => {
  const committed = JSON.parse(readFileSync(join(ROOT, "docs", "openapi.json"), "utf8"));
  expect(committed).toEqual(await buildDocument({ serverUrl: DOCUMENT_SERVER }));
});

test("the generated client types (test/generated/api-types.ts) were made from docs/openapi.json as it is", () => {
  const types = readFileSync(join(ROOT, "test", "generated", "api-types.ts"), "utf8");
  expect(types.split("\n", 1)[0]).toBe(typesHeader(readFileSync(join(ROOT, "docs", "openapi.json"), "utf8")));
});

test("every route of the API is in the document; the rest are pages for people", async () => {
  const pages = ["GET /", "GET /thanks", "OPTIONS /thanks", "GET /docs", "GET /docs/{asset}", "GET /confirm/{token}"];
  const registered = (await registeredRoutes()).map((r) => r.replace(/:(\w+)/g, "{$1}")).filter((r) => !pages.includes(r));
  const documented = Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item as object).map((method) => `${method.toUpperCase()} ${path}`));
  expect(registered.toSorted()).toEqual(documented.toSorted());
});

test("every example in the document matches the schema beside it", async () => {
  const examples: { at: string; problem: string | null }[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(item as Record<string, any>)) {
      const bodies = [["requestBody"], ...Object.keys(operation.responses).map((status) => ["responses", status])];
      for (const where of bodies) {
        const content = where.reduce((node: any, key) => node?.[key], operation)?.content ?? {};
        for (const [media, object] of Object.entries(content as Record<string, any>)) {
          if (object.example === undefined) continue;
          const at = ["paths", path, method, ...where, "content", media, "schema"];
          examples.push({ at: at.join(" "), problem: await schemaProblem(at, object.example) });
        }
      }
    }
  }
  expect(examples.length).toBeGreaterThan(30);
  expect(examples.filter((e) => e.problem !== null)).toEqual([]);
});

describe("the documented query parameters accept what the server accepts, and nothing else", () => {
  const ajv = new Ajv2020({ strict: false });
  const parameters = document.paths["/api/forms/{id}/submissions"].get.parameters as { name: string; schema: object }[];
  const documentSays = (name: string, value: string) => {
    const schema = parameters.find((p) => p.name === name)!.schema as { type?: string };
    // A query string is text: an integer parameter is documented as an integer and sent as its digits.
    const typed = schema.type === "integer" && /^-?\d+$/.test(value) ? Number(value) : value;
    return ajv.validate(schema, typed);
  };
  const serverSays = async (name: string, value: string) => {
    try {
      listQuery(await parseQuery(LIST_QUERY, { [name]: value }));
      return true;
    } catch {
      return false;
    }
  };
  const cases: Record<string, string[]> = {
    limit: ["0", "1", "50", "100", "101", "abc", "-1", "1.5"],
    offset: ["0", "7", "-1", "abc"],
    order: ["asc", "desc", "up"],
    filter: ["all", "unread", "starred", "spam", "nope"],
    after: ["sub_0123456789abcdefghijkl", "sub_short", "frm_0123456789abcdefghijkl"],
    q: ["hello", "x".repeat(200), "x".repeat(201)],
  };
  for (const [name, values] of Object.entries(cases)) {
    test(name, async () => {
      const server = await Promise.all(values.map(async (v) => [v, await serverSays(name, v)]));
      expect(values.map((v) => [v, documentSays(name, v)])).toEqual(server);
    });
  }
});

describe("an answer that drifts from the document fails the test that receives it", () => {
  const form = {
    id: "frm_01m871qf80gk7pa9e2d4x6",
    name: "Contact",
    slug: "contact-form",
    mode: "live",
    isActive: true,
    submissionCount: 0,
    createdAt: "2026-11-22T12:00:00.000Z",
    updatedAt: "2026-11-22T12:00:00.000Z",
    notificationEmail: null,
    redirectUrl: null,
    allowedDomains: [],
    captcha: null,
    submitUrl: `${BASE}/f/contact-form`,
    fileUploads: false,
    retentionDays: null,
    spamRetentionDays: 30,
    fields: [],
    otherFields: "keep",
    confirmation: null,
    spamRules: null,
    spamFilter: { enabled: true, threshold: 0.6 },
    page: { enabled: false, title: null, description: null, logoUrl: null, accentColor: null, submitLabel: null, thankYouMessage: null, language: null },
    notificationRoutes: [],
    payment: null,
  };
  const check = (status: number, body: unknown, url = `${BASE}/api/forms/${form.id}`) => checkResponse("GET", url, Response.json(body, { status }));

  test("the answer as documented passes", async () => {
    await check(200, form);
  });
  test("a field of the wrong type", async () => {
    await expect(check(200, { ...form, submissionCount: "0" })).rejects.toThrow(/submissionCount must be integer/);
  });
  test("a field the document does not have", async () => {
    await expect(check(200, { ...form, owner: "acc_1" })).rejects.toThrow(/must NOT have additional properties/);
  });
  test("a field left out", async () => {
    await expect(check(200, { ...form, slug: undefined })).rejects.toThrow(/must have required property 'slug'/);
  });
  test("a status the operation does not list", async () => {
    await expect(check(409, { error: { code: "slug_taken", message: "taken" } })).rejects.toThrow(/a status the OpenAPI document does not list/);
  });
  test("an error code of another status", async () => {
    await expect(check(404, { error: { code: "forbidden", message: "no" }, errors: [{ code: "forbidden", message: "no" }] })).rejects.toThrow(
      /must be equal to one of the allowed values/,
    );
  });
  test("an unknown path under /api that is not the error shape", async () => {
    await expect(check(404, { message: "no" }, `${BASE}/api/nowhere`)).rejects.toThrow(/not the error shape/);
  });
});
