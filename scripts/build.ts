// Compiles the single binary: `bun scripts/build.ts [--target bun-linux-arm64] [--outfile dist/formsvc-linux-arm64]`.
// The same as `bun build --compile --minify --splitting --bytecode --format=esm cli/formsvc.ts`, plus the two
// plugins of scripts/bundle.ts, which the command line cannot say. A development build: `formsvc version` says
// "dev"; `npm run release` (scripts/release.ts) makes the builds that know their version and can update.
import { join } from "node:path";
import { parseArgs } from "node:util";
import { compileBinary, gitCommit } from "./compile.ts";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: "string" }, outfile: { type: "string", default: join(root, "dist", "formsvc") } },
});

const commit = gitCommit();
try {
  await compileBinary({ outfile: values.outfile, target: values.target, commit });
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
console.error(`built ${values.outfile}${values.target ? ` for ${values.target}` : ""} from commit ${commit}`);
