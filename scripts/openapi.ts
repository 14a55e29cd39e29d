// Writes docs/openapi.json (the document the server serves at /api/openapi.json, for a reader without a server)
// and test/generated/api-types.ts, the TypeScript types openapi-typescript generates from it, which the
// generated-client test uses with openapi-fetch. Run by `npm run openapi` after a change to the API's schemas;
// test/unit/openapi.test.ts fails while docs/openapi.json is not what the server would serve.
//
// openapi-typescript runs through npx rather than as a devDependency: it needs TypeScript 5's compiler API,
// which the TypeScript this project checks with (7, the native one) does not have.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { buildDocument, DOCUMENT_SERVER } from "../src/openapi/document.ts";
import { typesHeader } from "../test/generated/header.ts";

const root = join(import.meta.dir, "..");
const documentPath = join(root, "docs", "openapi.json");
writeFileSync(documentPath, `${JSON.stringify(await buildDocument({ serverUrl: DOCUMENT_SERVER }), null, 2)}\n`);
const typesPath = join(root, "test", "generated", "api-types.ts");
const run = Bun.spawnSync(["npx", "--yes", "openapi-typescript@7.13.0", documentPath, "--output", typesPath], { stdout: "inherit", stderr: "inherit" });
if (run.exitCode !== 0) process.exit(run.exitCode ?? 1);
// In the project's own format, so that biome check passes on what was generated.
Bun.spawnSync(["npx", "biome", "format", "--write", documentPath, typesPath], { stdout: "ignore", stderr: "inherit" });
// The digest of the document they were made from: test/unit/openapi.test.ts fails when the two part ways.
const types = await Bun.file(typesPath).text();
writeFileSync(typesPath, `${typesHeader(await Bun.file(documentPath).text())}\n${types}`);
console.log(`wrote ${documentPath} and ${typesPath}`);
