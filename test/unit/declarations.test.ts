import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { OPERATIONS, requestFor } from "../../src/api/index.ts";
import { PATH_PARAMETERS, queryParameters } from "../../src/api/query.ts";
import { ROOT } from "../helpers/cli.ts";

// What must hold of the declarations for everything derived from them to be right. The behaviour each one
// declares (its permission, which keys it takes) is checked route by route in test/api/security.test.ts.

test("every operation has its own id, and every one that takes a key names a permission", () => {
  const ids = OPERATIONS.map((declared) => declared.operationId);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  expect(OPERATIONS.filter((declared) => declared.scope !== "public" && !declared.permission).map((d) => d.operationId)).toEqual([]);
  expect(OPERATIONS.filter((declared) => declared.scope === "public" && declared.permission).map((d) => d.operationId)).toEqual([]);
});

test("every path and query parameter of a declaration is one the API describes", async () => {
  const query = await queryParameters();
  const unknown = OPERATIONS.flatMap((declared) => [
    ...[...declared.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).filter((name) => !(name in PATH_PARAMETERS)),
    ...(declared.query ?? []).filter((name) => !(name in query)),
  ]);
  expect(unknown).toEqual([]);
});

test("a handler never checks a key itself: the key check is the declaration's", () => {
  const dir = join(ROOT, "src", "api");
  const calls = readdirSync(dir)
    .filter((name) => name !== "operation.ts")
    .filter((name) => /\b(authorize|requirePermission|authenticate)\(/.test(readFileSync(join(dir, name), "utf8")));
  expect(calls).toEqual([]);
});

test("the remote CLI's request comes from the declaration: path filled and encoded, undeclared query refused", () => {
  expect(requestFor("listDeliveries", { id: "a b/c" }, { webhook: "whk_1", limit: undefined })).toEqual({
    method: "GET",
    path: "/api/forms/a%20b%2Fc/deliveries",
    query: { webhook: "whk_1", limit: undefined },
  });
  expect(() => requestFor("listForms", {}, { limit: "5" })).toThrow("listForms declares no query parameter limit");
  expect(() => requestFor("getForm")).toThrow("getForm needs the path parameter id");
});
