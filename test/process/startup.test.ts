import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { bundleOptions } from "../../scripts/bundle.ts";
import { ROOT } from "../helpers/cli.ts";

// What a start of the binary loads, read from the bundle it is built from: the entry chunk and the chunks it
// imports statically load at every start; a chunk behind an `await import()` loads when that line runs.
// A command module that imports heavy code at its top makes every command pay for it; these tests say which
// and where, so that it can be moved into the command's action (see docs/cli.md "Adding a command").

interface Chunk {
  /** Source files bundled into this chunk, relative to the repository (node_modules/<package>/... for packages). */
  modules: string[];
  /** Built-in modules it imports (net, tls, node:fs, ...), hoisted to the chunk's start. */
  builtins: string[];
  staticImports: string[];
  dynamicImports: string[];
}

let dir: string;
const chunks = new Map<string, Chunk>();
let entry: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "formsvc-bundle-"));
  const result = await Bun.build({ ...bundleOptions(), minify: false, outdir: dir });
  if (!result.success) throw new Error(result.logs.join("\n"));
  for (const name of readdirSync(dir)) {
    const text = readFileSync(join(dir, name), "utf8");
    const chunkImports = (pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1]!);
    chunks.set(name, {
      // Each module starts with a comment naming its file, relative to where the build ran.
      modules: [...text.matchAll(/^\/\/ (\S+\.(?:[cm]?js|ts|json))$/gm)].map((m) =>
        relative(ROOT, resolve(process.cwd(), m[1]!)).replace(/^.*?(node_modules\/)/, "$1"),
      ),
      builtins: chunkImports(/^import\b[^;]*?\bfrom\s*"((?:node:)?[a-z_]+[a-z_/]*)";?$/gm),
      staticImports: [...chunkImports(/\bfrom\s*"\.\/([\w.-]+\.js)"/g), ...chunkImports(/^import\s*"\.\/([\w.-]+\.js)";?$/gm)],
      dynamicImports: chunkImports(/\bimport\("\.\/([\w.-]+\.js)"\)/g),
    });
  }
  entry = [...chunks.keys()].find((name) => name.startsWith("formsvc"))!;
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every module and built-in loaded once `start` is loaded: its own and those of the chunks it imports statically. */
function loadedWith(start: string): { modules: string[]; builtins: string[] } {
  const seen = new Set<string>();
  const walk = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const next of chunks.get(name)!.staticImports) walk(next);
  };
  walk(start);
  const all = [...seen].map((name) => chunks.get(name)!);
  return { modules: all.flatMap((c) => c.modules), builtins: [...new Set(all.flatMap((c) => c.builtins.map((b) => b.replace(/^node:/, ""))))] };
}

/** The chunk that holds a source file. */
function chunkOf(module: string): string {
  const found = [...chunks].find(([, chunk]) => chunk.modules.includes(module));
  if (!found) throw new Error(`${module} is in no chunk`);
  return found[0];
}

/** What of `heavy` (package folders, source files, built-ins) is loaded along with `start`. */
function heavyLoadedWith(start: string, heavy: { packages?: string[]; sources?: string[]; builtins?: string[] }) {
  const { modules, builtins } = loadedWith(start);
  return {
    packages: (heavy.packages ?? []).filter((p) => modules.some((m) => m.startsWith(`node_modules/${p}/`))),
    sources: (heavy.sources ?? []).filter((s) => modules.some((m) => m.startsWith(s))),
    builtins: (heavy.builtins ?? []).filter((b) => builtins.includes(b)),
  };
}

const NOTHING = { packages: [], sources: [], builtins: [] };

test("every command (version, --help) loads the CLI and commander only: no database, server, mail, HTTP client or export code", () => {
  expect(loadedWith(entry).modules).toContain("cli/program.ts");
  expect(
    heavyLoadedWith(entry, {
      packages: ["drizzle-orm", "zod", "nodemailer", "@libsql", "csv-stringify", "undici"],
      sources: [
        "src/db/client.ts",
        "src/db/schema",
        "src/services/index.ts",
        "src/server.ts",
        "src/app.ts",
        "src/routes/",
        "src/workers/mail-sender.ts",
        "cli/client.ts",
      ],
      // Node's streams and sockets take 10-15 ms to set up; undici is Bun's built-in HTTP client.
      builtins: ["net", "tls", "http", "https", "tty", "stream", "dns", "zlib", "undici"],
    }),
  ).toEqual(NOTHING);
});

test("a local command on a SQLite file loads no libSQL client, HTTP client, mail or CSV code", () => {
  const services = chunkOf("src/services/index.ts");
  expect(chunks.get(entry)!.dynamicImports.length).toBeGreaterThan(0);
  expect(
    heavyLoadedWith(chunkOf("src/db/client.ts"), {
      packages: ["@libsql", "nodemailer", "csv-stringify"],
      sources: ["src/db/libsql.ts"],
      builtins: ["undici", "net", "tls", "http"],
    }),
  ).toEqual(NOTHING);
  expect(
    heavyLoadedWith(services, {
      packages: ["@libsql", "nodemailer", "csv-stringify"],
      sources: ["cli/client.ts", "src/workers/mail-sender.ts"],
      builtins: ["undici", "net", "tls", "http"],
    }),
  ).toEqual(NOTHING);
});

test("serve without an SMTP server loads no nodemailer, libSQL client, CSV code, zod or QR code maker", () => {
  // The sender, loaded only with an SMTP URL, is where nodemailer's sockets come in.
  expect(loadedWith(chunkOf("src/workers/mail-sender.ts")).builtins).toEqual(expect.arrayContaining(["net", "tls"]));
  expect(
    heavyLoadedWith(chunkOf("src/server.ts"), {
      // zod (4 to 7 MB of resident memory) loads with the first request that validates a body; the OpenAPI
      // document and the /docs page are built on their first request.
      // The QR code's maker loads with the dashboard's first QR code; MCP and the forms file with their first request.
      packages: ["nodemailer", "@libsql", "csv-stringify", "zod", "swagger-ui-dist", "@modelcontextprotocol", "qrcode"],
      sources: ["src/workers/mail-sender.ts", "src/openapi/", "src/mcp/", "src/forms-as-code/"],
      builtins: ["net", "tls", "dns"],
    }),
  ).toEqual(NOTHING);
});
