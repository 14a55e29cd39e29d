import type { Command } from "commander";
import pkg from "../package.json" with { type: "json" };
import type { Io } from "./io.ts";

/** The version of formsvc, and of the runtime it carries. */
export function versionInfo() {
  return { version: pkg.version, bun: Bun.version, platform: `${process.platform}-${process.arch}` };
}

export function versionCommand(program: Command, io: Io): void {
  program
    .command("version")
    .description("print the version")
    .addHelpText("after", "\nExamples:\n  formsvc version\n  formsvc version --json | jq -r .version\n")
    .action((_flags, command: Command) => {
      const info = versionInfo();
      if (command.optsWithGlobals().json) io.out(`${JSON.stringify(info, null, 2)}\n`);
      else io.out(`formsvc ${info.version} (bun ${info.bun}, ${info.platform})\n`);
    });
}
