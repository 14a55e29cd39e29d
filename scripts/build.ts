// Compiles the single binary: `bun scripts/build.ts [--target bun-linux-arm64] [--outfile dist/formsvc-linux-arm64]`.
// The same as `bun build --compile --minify --splitting --bytecode --format=esm cli/formsvc.ts`, plus what the
// command line cannot say. First:
// @libsql/client's Node entry loads a native addon chosen at run time (@libsql/linux-x64-gnu, ...), which
// a bundler cannot follow, so the binary would fail at start on any machine without node_modules. Its web
// entry speaks to libSQL servers over HTTP and WebSockets with no native code, so the binary works on every
// target: SQLite files go through bun:sqlite, libsql:// and https:// URLs through the web client.
import type { BunPlugin } from "bun";
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string", default: join(root, "dist", "formsvc") } },
});

const libsqlWebClient: BunPlugin = {
  name: "libsql-web-client",
  setup(build) {
    build.onResolve({ filter: /^@libsql\/client$/ }, () => ({ path: Bun.resolveSync("@libsql/client/web", root) }));
  },
};

// chalk works out at import whether the terminal takes colour, which loads node:tty and node:os (about 15 ms
// at every start). formsvc decides colour itself (cli/io.ts colorLevel) and hands chalk the level, so the
// binary takes chalk's other detection, which reads nothing.
const chalkWithoutDetection: BunPlugin = {
  name: "chalk-without-detection",
  setup(build) {
    build.onResolve({ filter: /^#supports-color$/ }, () => ({ path: join(dirname(Bun.resolveSync("chalk", root)), "vendor", "supports-color", "browser.js") }));
  },
};

mkdirSync(dirname(values.outfile), { recursive: true });
const result = await Bun.build({
  entrypoints: [join(root, "cli", "formsvc.ts")],
  minify: true,
  // Each `await import()` becomes a chunk of its own, loaded when reached: in one bundle, the Node built-ins
  // that any module imports (net, tls, http, stream: nodemailer's and undici's) would all load at every start.
  splitting: true,
  // Compiled ahead to JavaScriptCore bytecode, so that a start does not parse and compile the code it runs
  // (ESM bytecode needs the explicit format and --compile).
  bytecode: true,
  format: "esm",
  plugins: [libsqlWebClient, chalkWithoutDetection],
  compile: {
    ...(values.target ? { target: values.target as Bun.Build.CompileTarget } : {}),
    outfile: values.outfile,
    // A server binary should do what its flags and environment say, not what a stray .env or bunfig.toml
    // in the directory it happens to start from says.
    autoloadDotenv: false,
    autoloadBunfig: false,
  },
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.error(`built ${values.outfile}${values.target ? ` for ${values.target}` : ""}`);
