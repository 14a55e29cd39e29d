// How the binary's code is bundled, shared by scripts/build.ts and by test/process/startup.test.ts, which
// checks what every start of the CLI loads.
import type { BunPlugin } from "bun";
import { dirname, join } from "node:path";

const root = join(import.meta.dir, "..");

// @libsql/client's Node entry loads a native addon chosen at run time (@libsql/linux-x64-gnu, ...), which
// a bundler cannot follow, so the binary would fail at start on any machine without node_modules. Its web
// entry speaks to libSQL servers over HTTP and WebSockets with no native code, so the binary works on every
// target: SQLite files go through bun:sqlite, libsql:// and https:// URLs through the web client.
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

// commander requires node:child_process at import, for executable subcommands (a command that is a program
// of its own), which formsvc does not have. Loading Node's child_process costs every start about 2.5 MB of
// resident memory and a few ms; the binary gives commander a stub that throws if it is ever used.
const commanderWithoutChildProcess: BunPlugin = {
  name: "commander-without-child-process",
  setup(build) {
    build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, async (args) => {
      const source = await Bun.file(args.path).text();
      const stubbed = source.replace("require('node:child_process')", "{ spawn() { throw new Error('formsvc has no executable subcommands'); } }");
      if (stubbed === source) throw new Error("commander no longer requires node:child_process as scripts/bundle.ts expects");
      return { contents: stubbed, loader: "js" };
    });
  },
};

/** The bundle of cli/formsvc.ts as the binary carries it. */
export function bundleOptions() {
  return {
    entrypoints: [join(root, "cli", "formsvc.ts")],
    target: "bun",
    format: "esm",
    minify: true,
    // Each `await import()` becomes a chunk of its own, loaded when reached: in one bundle, the Node built-ins
    // that any module imports (net, tls, http, stream: nodemailer's and undici's) would all load at every start.
    splitting: true,
    plugins: [libsqlWebClient, chalkWithoutDetection, commanderWithoutChildProcess],
  } satisfies Bun.BuildConfig;
}
