// Checks the rooms' import rules (docs/architecture.md): no import circle anywhere in src/ and cli/, and
// src/lib imports nothing but src/lib, the error type (src/errors.ts) and packages.
// `bun scripts/check-imports.ts [root]`: one line per fault on stderr, exit 1 when there is one.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOMS = ["src", "cli"];
const SOURCE = /\.(ts|tsx)$/;
// Static imports and re-exports, side-effect imports, and dynamic import() of a literal path.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g;

/** Every .ts and .tsx file below a folder, as absolute paths. */
function sourceFiles(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE.test(name) && !name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The project files one file imports (packages and node: modules left out). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8").replace(/^\s*\/\/.*$/gm, "");
  const found = new Set<string>();
  for (const [, specifier] of text.matchAll(SPECIFIER)) {
    if (!specifier?.startsWith(".")) continue;
    const base = resolve(dirname(file), specifier);
    const target = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts")].find((path) => existsSync(path) && statSync(path).isFile());
    if (target && SOURCE.test(target)) found.add(target);
  }
  return [...found];
}

/** Each import circle once, as the list of files around it (Tarjan's strongly connected components). */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file) as number);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) as number, low.get(next) as number));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) as number, index.get(next) as number));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) found.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The faults of the tree at root, one line each; empty when the rules hold. */
export function checkImports(root: string): string[] {
  const graph = new Map<string, string[]>();
  for (const room of ROOMS) for (const file of sourceFiles(join(root, room))) graph.set(file, importsOf(file));
  const name = (file: string) => relative(root, file);
  const lib = join(root, "src", "lib");
  const inLib = (file: string) => file.startsWith(`${lib}/`);
  const libMay = (file: string) => inLib(file) || file === join(root, "src", "errors.ts");
  const faults: string[] = [];
  for (const [file, targets] of graph) {
    if (!inLib(file)) continue;
    for (const target of targets)
      if (!libMay(target)) faults.push(`${name(file)} imports ${name(target)}: src/lib imports only src/lib, src/errors.ts and packages`);
  }
  for (const circle of circles(graph)) faults.push(`import circle: ${circle.map(name).join(" ↔ ")}`);
  return faults;
}

if (import.meta.main) {
  const faults = checkImports(resolve(process.argv[2] ?? join(import.meta.dir, "..")));
  for (const fault of faults) console.error(fault);
  process.exit(faults.length === 0 ? 0 : 1);
}
