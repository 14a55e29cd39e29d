import { expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };

// `engines` says which Node runs npm install and the dev tools; every installed package must allow the oldest
// Node it names, so that an install there prints no EBADENGINE warning.
const oldest = /^>=(\d+\.\d+)$/.exec(pkg.engines.node)?.[1];

/** Every package under node_modules (nested ones too) that names a Node it needs. */
function packages(dir: string, out: { name: string; node: string }[] = []): { name: string; node: string }[] {
  for (const entry of readdirSync(dir)) {
    if (entry.startsWith(".")) continue;
    const path = join(dir, entry);
    if (entry.startsWith("@")) {
      packages(path, out);
      continue;
    }
    const manifest = join(path, "package.json");
    if (existsSync(manifest)) {
      const { name, engines } = JSON.parse(readFileSync(manifest, "utf8")) as { name: string; engines?: { node?: string } };
      if (typeof engines?.node === "string") out.push({ name, node: engines.node });
    }
    if (existsSync(join(path, "node_modules"))) packages(join(path, "node_modules"), out);
  }
  return out;
}

test("every installed package allows the oldest Node that engines names", () => {
  expect(oldest).toBeDefined();
  const refusing = packages(join(import.meta.dir, "../../node_modules")).filter((p) => !Bun.semver.satisfies(`${oldest}.0`, p.node));
  expect(refusing).toEqual([]);
});
