import type { Command } from "commander";
import pkg from "../package.json" with { type: "json" };
import type { Io } from "./io.ts";

// Set by `npm run build` (scripts/build.ts defines it as the git commit the binary was built from); absent
// when formsvc runs from a checkout, which says "dev".
declare const FORMSVC_COMMIT: string | undefined;

/** The version of formsvc, the commit it was built from, and the runtime it carries. */
export function versionInfo() {
  const commit = typeof FORMSVC_COMMIT === "string" ? FORMSVC_COMMIT : "dev";
  return { version: pkg.version, commit, bun: Bun.version, platform: `${process.platform}-${process.arch}` };
}

export function versionCommand(program: Command, io: Io): void {
  program
    .command("version")
    .description("print the version")
    .addHelpText("after", "\nExamples:\n  formsvc version\n  formsvc version --json | jq -r .version\n")
    .action((_flags, command: Command) => {
      const info = versionInfo();
      if (command.optsWithGlobals().json) io.out(`${JSON.stringify(info, null, 2)}\n`);
      else io.out(`formsvc ${info.version} (commit ${info.commit}, bun ${info.bun}, ${info.platform})\n`);
    });
}
