import type { Command } from "commander";
import { CliError } from "./errors.ts";
import type { InstallOptions } from "./install-system.ts";
import type { Io } from "./io.ts";

export function installCommand(program: Command, io: Io): void {
  program
    .command("install")
    .description("install this binary as the formsvc service: user, folders, settings file, systemd unit, start, setup link")
    .option("--domain <name>", "HTTPS by itself for this host name (ports 80 and 443, a certificate from Let's Encrypt)")
    .option("--no-start", "install, but neither enable nor start the service")
    .option("--root <dir>", "install under DIR (the user into DIR/etc/passwd and DIR/etc/group); writes nothing outside it, starts nothing")
    .option("--uninstall", "remove the binary and the unit; keep the data, the settings and the user")
    .addHelpText(
      "after",
      "\nExamples:\n  sudo ./formsvc install --domain forms.example.com\n  sudo ./formsvc install            # behind Caddy or nginx on 127.0.0.1:8080\n  ./formsvc install --root ./image --no-start\n  sudo formsvc install --uninstall\n",
    )
    .action(async (options: InstallOptions) => {
      // What it writes and runs is loaded only when asked for: no other command needs it.
      const { install, uninstall } = await import("./install-system.ts");
      if (options.domain !== undefined && !/^[A-Za-z0-9.-]+$/.test(options.domain)) {
        throw new CliError("--domain takes one host name (letters, digits, dots and hyphens), such as forms.example.com", 2);
      }
      if (options.uninstall) await uninstall(options, io);
      else await install(options, io);
    });
}
