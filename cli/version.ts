import type { Command } from "commander";
import { migrations } from "../src/db/migrations/index.ts";
import { buildInfo } from "../src/lib/release.ts";
import type { Io } from "./io.ts";

// Set by `npm run build` and `npm run release` (scripts/compile.ts defines it as the git commit the binary was
// built from); absent when formsvc runs from a checkout, which says "dev".
declare const FORMSVC_COMMIT: string | undefined;

/**
 * What this binary is (docs/cli.md, "version"): its version ("dev" unless `npm run release` built it), platform,
 * the release address and key fingerprint it was released with (null in a development build), and the database
 * schema version it writes.
 */
export function versionInfo() {
  return { ...buildInfo(), schema: migrations.length };
}

export function versionCommand(program: Command, io: Io): void {
  program
    .command("version")
    .description("print the version")
    .addHelpText("after", "\nExamples:\n  formsvc version\n  formsvc version --json | jq -r .version\n")
    .action((_flags, command: Command) => {
      const info = versionInfo();
      const commit = typeof FORMSVC_COMMIT === "string" ? FORMSVC_COMMIT : "dev";
      if (command.optsWithGlobals().json) io.out(`${JSON.stringify(info, null, 2)}\n`);
      else io.out(`formsvc ${info.version} (commit ${commit}, bun ${Bun.version}, ${info.os}-${info.arch}, schema ${info.schema})\n`);
    });
}
