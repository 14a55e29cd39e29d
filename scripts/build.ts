// Compiles the single binary: `bun scripts/build.ts [--target bun-linux-arm64] [--outfile dist/formsvc-linux-arm64]`.
// The same as `bun build --compile --minify --splitting --bytecode --format=esm cli/formsvc.ts`, plus the two
// plugins of scripts/bundle.ts, which the command line cannot say.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { bundleOptions } from "./bundle.ts";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string", default: join(root, "dist", "formsvc") } },
});

/** The commit the binary is built from (with -dirty for uncommitted changes), for `formsvc version`. */
function gitCommit(): string {
  const run = (args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const head = run(["rev-parse", "--short=12", "HEAD"]);
  if (head.exitCode !== 0) return "unknown";
  const dirty = run(["status", "--porcelain", "--untracked-files=no"]).stdout.toString().trim() !== "";
  return `${head.stdout.toString().trim()}${dirty ? "-dirty" : ""}`;
}

mkdirSync(dirname(values.outfile), { recursive: true });
const commit = gitCommit();
const result = await Bun.build({
  ...bundleOptions(),
  // Compiled ahead to JavaScriptCore bytecode, so that a start does not parse and compile the code it runs
  // (ESM bytecode needs the explicit format and --compile).
  bytecode: true,
  define: { FORMSVC_COMMIT: JSON.stringify(commit) },
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
console.error(`built ${values.outfile}${values.target ? ` for ${values.target}` : ""} from commit ${commit}`);
