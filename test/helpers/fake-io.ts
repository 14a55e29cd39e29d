import { Chalk } from "chalk";
import { colorLevel, type Io } from "../../cli/io.ts";
import { main } from "../../cli/program.ts";
import type { RunResult } from "./cli.ts";

/** A fake of the process's streams (the GitHub CLI's iostreams.Test()), with what the command wrote. */
export interface FakeIo {
  io: Io;
  stdout(): string;
  stderr(): string;
}

/**
 * Streams for a command run in-process: stdout and stderr kept, stdin given as text (each prompt takes a line,
 * `input` the rest). Terminal or piped as `tty` says, else as the real process would take FORMSVC_TTY=1 from
 * `env` (which is all the command sees of the environment); colour by the same rule as the real process.
 */
export function fakeIo({ env = {}, stdin, tty }: { env?: Record<string, string | undefined>; stdin?: string; tty?: boolean } = {}): FakeIo {
  const terminal = tty ?? env.FORMSVC_TTY === "1";
  const out: Uint8Array[] = [];
  const err: string[] = [];
  const encoder = new TextEncoder();
  let rest = stdin ?? null;
  const io: Io = {
    out: (text) => void out.push(encoder.encode(text)),
    err: (text) => void err.push(text),
    write: async (chunk) => void out.push(typeof chunk === "string" ? encoder.encode(chunk) : chunk.slice()),
    async prompt(question) {
      err.push(question);
      if (rest === null || rest === "") return null;
      const end = rest.indexOf("\n");
      const line = end === -1 ? rest : rest.slice(0, end);
      rest = end === -1 ? "" : rest.slice(end + 1);
      return line.replace(/\r$/, "");
    },
    async input() {
      const text = rest ?? "";
      rest = "";
      return text;
    },
    isTTY: terminal,
    errIsTTY: terminal,
    inIsTTY: terminal,
    chalk: new Chalk({ level: colorLevel(terminal, env) }),
    env,
  };
  return {
    io,
    stdout: () => new TextDecoder().decode(Buffer.concat(out)),
    stderr: () => err.join(""),
  };
}

/**
 * Runs the CLI in this process, as `formsvc ...args` would run (`main`, the program the binary runs), with a
 * clean environment plus `env`, as test/helpers/cli.ts's runCli runs the real process; stdin, stdout and
 * stderr are a fake's.
 */
export async function runInProcess(args: string[], options: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}): Promise<RunResult> {
  const fake = fakeIo({ env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...options.env }, stdin: options.stdin, tty: options.tty });
  const code = await main(args, fake.io);
  return { code, stdout: fake.stdout(), stderr: fake.stderr() };
}
