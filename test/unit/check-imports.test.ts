import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { checkImports, readRooms } from "../../scripts/check-imports.ts";

const SCRIPT = join(import.meta.dir, "../../scripts/check-imports.ts");
const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

/** A project tree in a temp folder, from a map of path → file text. */
function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "formsvc-imports-"));
  roots.push(root);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

/** A rooms table as docs/architecture.md writes it, with `libImports` as the last column of src/lib's row. */
const architecture = (libImports = "`src/lib/`, `src/errors.ts` and packages; **nothing of the domain**") => `# Architecture

## The rooms

| room | holds | imports |
|---|---|---|
| \`src/errors.ts\` | the error type | nothing of the project |
| \`src/domain/\` | the words every room speaks | nothing of the project |
| \`src/db/\` | the store | \`src/db/\` only |
| \`src/lib/\` | pure helpers | ${libImports} |
| \`src/services/\` | the domain | \`domain/\`, \`db/\`, \`lib/\`, \`errors.ts\` |
| \`cli/\` | the command line | \`src/\` |

## The path of a post

| not | a | room |
|---|---|---|
| \`src/other/\` | | |
`;

const GOOD = {
  "docs/architecture.md": architecture(),
  "src/lib/time.ts": 'import { ApiError } from "../errors.ts";\nexport const now = () => Date.now();\n',
  "src/errors.ts": "export class ApiError extends Error {}\n",
  "src/domain/types.ts": "export type Form = { id: string };\n",
  "src/services/forms.ts": 'import type { Form } from "../domain/types.ts";\nimport { now } from "../lib/time.ts";\nimport { z } from "zod";\n',
  "cli/forms.ts": 'import "../src/services/forms.ts";\n// import { x } from "./forms.ts";\n',
};

test("a tree that keeps the rules has no fault, and the script exits 0", () => {
  const root = tree(GOOD);
  expect(checkImports(root)).toEqual([]);
  expect(Bun.spawnSync([process.execPath, SCRIPT, root]).exitCode).toBe(0);
});

test("a circle, a dynamic import that closes one, an import the table does not name and a file in no room are each named, and the script exits 1", () => {
  const root = tree({
    ...GOOD,
    "src/lib/time.ts": 'import type { Form } from "../domain/types.ts";\nexport const now = () => Date.now();\n',
    "src/db/client.ts": 'import { migrate } from "./migrate.ts";\nexport const open = () => import("./libsql.ts");\n',
    "src/db/migrate.ts": 'import type { Change } from "./client.ts";\n',
    "src/db/libsql.ts": "export const x = 1;\n",
    "src/services/a.ts": 'export { b } from "./b.ts";\n',
    "src/services/b.ts": 'const a = await import("./a.ts");\n',
    "src/services/c.ts": 'import type { Command } from "../../cli/forms.ts";\n',
    "src/other/x.ts": "export const x = 1;\n",
  });
  expect(checkImports(root).sort()).toEqual([
    "import circle: src/db/client.ts ↔ src/db/migrate.ts",
    "import circle: src/services/a.ts ↔ src/services/b.ts",
    "src/lib/time.ts imports src/domain/types.ts: the room `src/lib/` imports only what docs/architecture.md says",
    "src/other/x.ts is in no room of the table in docs/architecture.md",
    "src/services/c.ts imports cli/forms.ts: the room `src/services/` imports only what docs/architecture.md says",
  ]);
  const run = Bun.spawnSync([process.execPath, SCRIPT, root], { stderr: "pipe" });
  expect(run.exitCode).toBe(1);
  expect(run.stderr.toString()).toContain("import circle: src/services/a.ts ↔ src/services/b.ts");
});

test('the rule is the table\'s: a row that names an import allows it, and "everything below" is every row above', () => {
  const files = { ...GOOD, "src/lib/time.ts": 'import type { Form } from "../domain/types.ts";\n' };
  expect(checkImports(tree(files))).toEqual(["src/lib/time.ts imports src/domain/types.ts: the room `src/lib/` imports only what docs/architecture.md says"]);
  expect(checkImports(tree({ ...files, "docs/architecture.md": architecture("`src/lib/`, `domain/`") }))).toEqual([]);
  expect(checkImports(tree({ ...files, "docs/architecture.md": architecture("everything below") }))).toEqual([]);
  expect(readRooms(architecture("everything below"))[3]).toEqual({
    label: "`src/lib/`",
    paths: ["src/lib/"],
    imports: ["src/errors.ts", "src/domain/", "src/db/"],
  });
});

test("this project's own tree keeps the rules", () => {
  expect(checkImports(join(import.meta.dir, "../.."))).toEqual([]);
});
