import { expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };

// npm 11 runs a dependency's install scripts only when package.json's allowScripts names it ("npm help
// install-scripts"), and a later npm skips the others: bun and esbuild fetch their binaries in theirs, so
// `npm install && npm start` needs every installed package with an install script decided there.

const root = join(import.meta.dir, "..", "..");
const HOOKS = ["preinstall", "install", "postinstall"] as const;

test("every installed package with an install script is allowed or denied in package.json's allowScripts", async () => {
  const decided = new Set(Object.keys(pkg.allowScripts ?? {}).map((entry) => entry.replace(/(.)@[^@]*$/, "$1")));
  const undecided = new Set<string>();
  for await (const path of new Bun.Glob("node_modules/**/package.json").scan({ cwd: root, dot: true })) {
    // A package's own manifest, not a fixture or a file of its build inside it.
    if (!/(^|\/)node_modules\/(@[^/]+\/)?[^/@][^/]*\/package\.json$/.test(path)) continue;
    const manifest = (await Bun.file(join(root, path)).json()) as { name?: string; scripts?: Record<string, string> };
    if (!manifest.name || !HOOKS.some((hook) => manifest.scripts?.[hook])) continue;
    if (!decided.has(manifest.name)) undecided.add(manifest.name);
  }
  expect([...undecided].toSorted()).toEqual([]);
  expect(pkg.allowScripts).toMatchObject({ bun: true, esbuild: true });
});
