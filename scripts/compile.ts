// Compiling the single binary, shared by `npm run build` (a development build for this machine) and
// `npm run release` (a release build per platform, with its version, base URL and key built in).
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { bundleOptions } from "./bundle.ts";

const root = join(import.meta.dir, "..");

/** The commit the binary is built from (with -dirty for uncommitted changes), for `formsvc version`. */
export function gitCommit(): string {
  const run = (args: string[]) => Bun.spawnSync(["git", ...args], { cwd: root, stdout: "pipe", stderr: "ignore" });
  const head = run(["rev-parse", "--short=12", "HEAD"]);
  if (head.exitCode !== 0) return "unknown";
  const dirty = run(["status", "--porcelain", "--untracked-files=no"]).stdout.toString().trim() !== "";
  return `${head.stdout.toString().trim()}${dirty ? "-dirty" : ""}`;
}

/** What a release build knows of itself (src/lib/release.ts reads these); absent for a development build. */
export interface ReleaseDefines {
  version: string;
  baseUrl: string;
  /** The raw 32-byte Ed25519 public key, base64. */
  publicKey: string;
}

/** Compiles cli/formsvc.ts into one executable at `outfile`; throws with Bun's messages when the build fails. */
export async function compileBinary(options: { outfile: string; target?: string; commit: string; release?: ReleaseDefines }): Promise<void> {
  mkdirSync(dirname(options.outfile), { recursive: true });
  const define: Record<string, string> = { FORMSVC_COMMIT: JSON.stringify(options.commit) };
  if (options.release) {
    define.FORMSVC_VERSION = JSON.stringify(options.release.version);
    define.FORMSVC_BASE_URL = JSON.stringify(options.release.baseUrl);
    define.FORMSVC_RELEASE_PUBLIC_KEY = JSON.stringify(options.release.publicKey);
  }
  const result = await Bun.build({
    ...bundleOptions(),
    // Compiled ahead to JavaScriptCore bytecode, so that a start does not parse and compile the code it runs
    // (ESM bytecode needs the explicit format and --compile).
    bytecode: true,
    define,
    compile: {
      ...(options.target ? { target: options.target as Bun.Build.CompileTarget } : {}),
      outfile: options.outfile,
      // A server binary should do what its flags and environment say, not what a stray .env or bunfig.toml
      // in the directory it happens to start from says.
      autoloadDotenv: false,
      autoloadBunfig: false,
    },
  });
  if (!result.success) throw new Error(`the build of ${options.outfile} failed:\n${result.logs.join("\n")}`);
}
