import { Chalk, type ChalkInstance } from "chalk";

/** Where a command writes, and what it knows of its terminal: tests pass a fake one. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal: tables for people rather than tab-separated rows for scripts. */
  isTTY: boolean;
  /** stderr is a terminal: progress may be drawn there. */
  errIsTTY: boolean;
  chalk: ChalkInstance;
  env: Record<string, string | undefined>;
}

/** Colour only on a terminal, never with NO_COLOR set; FORCE_COLOR forces it (for tests and `less -R`). */
export function colorLevel(isTTY: boolean, env: Record<string, string | undefined>): 0 | 1 {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return 1;
  return isTTY ? 1 : 0;
}

/** The real process's streams. FORMSVC_TTY=1 makes stdout count as a terminal (for tests of the table output). */
export function processIo(): Io {
  const env = process.env;
  const isTTY = env.FORMSVC_TTY === "1" || Boolean(process.stdout.isTTY);
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    isTTY,
    errIsTTY: Boolean(process.stderr.isTTY),
    chalk: new Chalk({ level: colorLevel(isTTY, env) }),
    env,
  };
}
