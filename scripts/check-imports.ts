// Checks the rooms' import rules as docs/architecture.md writes them: every file of src/ and cli/ is in a room
// of its table "The rooms", imports only what its row's "imports" column names (and its own room), and no
// import circle runs anywhere. The table is read from the document, so that the two cannot part ways.
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

/** The document that holds the rooms table, from the project's root. */
export const ARCHITECTURE = "docs/architecture.md";

/** One row of the rooms table: the paths it holds and the paths its files may import (folders end in `/`). */
export interface Room {
  label: string;
  paths: string[];
  imports: string[];
}

// A path in the imports column is the project's (`src/lib/`, `cli/`) or, short, src/'s (`lib/`, `errors.ts`).
const projectPath = (text: string) => (text.startsWith("src/") || text.startsWith("cli/") ? text : `src/${text}`);
const codePaths = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!).filter((text) => /^[\w./-]+$/.test(text) && /[./]/.test(text));

/**
 * The rooms table of the document: the rows under "## The rooms", from the ground up. A row's imports are the
 * paths written in code in its last column; "everything below" is every room of the rows above it, and words
 * ("only", "and packages", "nothing of the project") are for the reader.
 */
export function readRooms(markdown: string): Room[] {
  const section = markdown.split(/^## /m).find((part) => part.startsWith("The rooms"));
  if (!section) throw new Error(`${ARCHITECTURE} has no section "The rooms"`);
  const rows = section
    .split("\n")
    .filter((line) => line.startsWith("|"))
    .map((line) =>
      line
        .split("|")
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
    // The header and its rule.
    .slice(2);
  const rooms: Room[] = [];
  for (const cells of rows) {
    const [label, , importsCell] = cells as [string, string, string];
    const paths = codePaths(label);
    if (paths.length === 0 || importsCell === undefined) throw new Error(`${ARCHITECTURE}: a row of the rooms table names no room: ${cells.join(" | ")}`);
    const below = /everything below/.test(importsCell) ? rooms.flatMap((room) => room.paths) : [];
    rooms.push({ label, paths, imports: [...below, ...codePaths(importsCell).map(projectPath)] });
  }
  return rooms;
}

/** True when `file` (relative to the root) is `path` or lies in it. */
const within = (file: string, path: string) => (path.endsWith("/") ? file.startsWith(path) : file === path);

/** The room that holds a file: the row whose path names it most closely. */
function roomOf(rooms: readonly Room[], file: string): Room | undefined {
  let best: { room: Room; length: number } | undefined;
  for (const room of rooms) for (const path of room.paths) if (within(file, path) && path.length > (best?.length ?? -1)) best = { room, length: path.length };
  return best?.room;
}

/** The faults of the tree at root, one line each; empty when the rules hold. */
export function checkImports(root: string): string[] {
  const rooms = readRooms(readFileSync(join(root, ARCHITECTURE), "utf8"));
  const graph = new Map<string, string[]>();
  for (const room of ROOMS) for (const file of sourceFiles(join(root, room))) graph.set(file, importsOf(file));
  const name = (file: string) => relative(root, file);
  const faults: string[] = [];
  for (const [file, targets] of graph) {
    const room = roomOf(rooms, name(file));
    if (!room) {
      faults.push(`${name(file)} is in no room of the table in ${ARCHITECTURE}`);
      continue;
    }
    for (const target of targets) {
      const allowed = [...room.paths, ...room.imports].some((path) => within(name(target), path));
      if (!allowed) faults.push(`${name(file)} imports ${name(target)}: the room ${room.label} imports only what ${ARCHITECTURE} says`);
    }
  }
  for (const circle of circles(graph)) faults.push(`import circle: ${circle.map(name).join(" ↔ ")}`);
  return faults;
}

if (import.meta.main) {
  const faults = checkImports(resolve(process.argv[2] ?? join(import.meta.dir, "..")));
  for (const fault of faults) console.error(fault);
  process.exit(faults.length === 0 ? 0 : 1);
}
