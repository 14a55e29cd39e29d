import { Chalk, type ChalkInstance } from "chalk";

/** Where a command writes, and what it knows of its terminal: tests pass a fake one. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Writes a chunk of data to stdout and resolves when the stream can take more (for exports of any size). */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Asks a question on stderr and reads one line from stdin; null when stdin ends first. */
  prompt(question: string): Promise<string | null>;
  /** stdout is a terminal: tables for people rather than tab-separated rows for scripts. */
  isTTY: boolean;
  /** stderr is a terminal: progress may be drawn there. */
  errIsTTY: boolean;
  /** stdin is a terminal: a person is there to answer a question. */
  inIsTTY: boolean;
  chalk: ChalkInstance;
  env: Record<string, string | undefined>;
}

/**
 * Colour only on a terminal, never with NO_COLOR set; FORCE_COLOR forces it (for tests and `less -R`), and
 * FORCE_COLOR=0 (or false) turns it off, as chalk and most tools read it.
 */
export function colorLevel(isTTY: boolean, env: Record<string, string | undefined>): 0 | 1 {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return 0;
  const force = env.FORCE_COLOR;
  if (force === "0" || force === "false") return 0;
  if (force !== undefined) return 1;
  return isTTY ? 1 : 0;
}

/** Resolves once `stream` has room again, or at once when it has room already. */
function drained(stream: NodeJS.WriteStream, accepted: boolean): Promise<void> {
  if (accepted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => {
      stream.off("error", failed);
      resolve();
    };
    const failed = (error: Error) => {
      stream.off("drain", done);
      reject(error);
    };
    stream.once("drain", done);
    stream.once("error", failed);
  });
}

/**
 * The real process's streams. FORMSVC_TTY=1 makes the process count as run from a terminal (stdin, stdout
 * and stderr), so that tests can see the tables, the progress bar and the confirmation question.
 */
export function processIo(): Io {
  const env = process.env;
  const forced = env.FORMSVC_TTY === "1";
  const isTTY = forced || Boolean(process.stdout.isTTY);
  return {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    write: (chunk) => drained(process.stdout, process.stdout.write(chunk)),
    async prompt(question) {
      process.stderr.write(question);
      for await (const line of console) return line;
      return null;
    },
    isTTY,
    errIsTTY: forced || Boolean(process.stderr.isTTY),
    inIsTTY: forced || Boolean(process.stdin.isTTY),
    chalk: new Chalk({ level: colorLevel(isTTY, env) }),
    env,
  };
}
