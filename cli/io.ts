import { Chalk, type ChalkInstance } from "chalk";
import { writeSync } from "node:fs";

/** Where a command writes, and what it knows of its terminal: tests pass a fake one. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** Writes a chunk of data to stdout and resolves when the stream can take more (for exports of any size). */
  write(chunk: string | Uint8Array): Promise<void>;
  /** Asks a question on stderr and reads one line from stdin; null when stdin ends first. */
  prompt(question: string): Promise<string | null>;
  /** Reads stdin to its end (a password or a file given as `-`). */
  input(): Promise<string>;
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
 * stdout or stderr, written straight to the file descriptor for as long as it takes the bytes at once (a
 * terminal, a file, a pipe that blocks), and through Node's stream from the first time it would not (a
 * non-blocking pipe whose reader is behind), so that order is kept and memory stays bounded either way.
 * Node's stream costs about 15 ms to set up: most commands never need it.
 */
function output(fd: 1 | 2) {
  let stream: NodeJS.WriteStream | null = null;
  // A reader that stops early (`| head`) closes the pipe: that is the reader's choice, not an error to report.
  const closed = (error: NodeJS.ErrnoException) => {
    if (fd === 1 && error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  };
  const toStream = () => {
    if (!stream) {
      stream = fd === 1 ? process.stdout : process.stderr;
      stream.on("error", closed);
    }
    return stream;
  };
  return {
    /** Writes the chunk; false when it waits in the stream's buffer (then wait for "drain"). */
    write(chunk: string | Uint8Array): boolean {
      if (stream) return stream.write(chunk);
      const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
      let offset = 0;
      while (offset < bytes.byteLength) {
        try {
          offset += writeSync(fd, bytes, offset);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EAGAIN") closed(error as NodeJS.ErrnoException);
          return toStream().write(bytes.subarray(offset));
        }
      }
      return true;
    },
    stream: toStream,
  };
}

/**
 * Whether a file descriptor is a terminal. Bun answers through its tty binding; node:tty would set up Node's
 * net and stream modules first (about 10 ms), so it is only the fallback, loaded on first use.
 */
function isatty(fd: number): boolean {
  const binding = (process as unknown as { binding?: (name: string) => { isTTY?: (fd: number) => boolean } }).binding;
  try {
    const isTTY = binding?.("tty_wrap").isTTY;
    if (typeof isTTY === "function") return Boolean(isTTY(fd));
  } catch {
    // No such binding in this runtime: ask node:tty.
  }
  return (require("node:tty") as typeof import("node:tty")).isatty(fd);
}

/**
 * The real process's streams. FORMSVC_TTY=1 makes the process count as run from a terminal (stdin, stdout
 * and stderr), so that tests can see the tables, the progress bar and the confirmation question. What a
 * command does not use is not looked at: each answer is worked out on first use, so that `formsvc version`
 * neither loads node:tty nor asks the terminal anything.
 */
export function processIo(): Io {
  const env = process.env;
  const forced = env.FORMSVC_TTY === "1";
  const once = <T>(make: () => T) => {
    let value: { v: T } | undefined;
    return () => {
      value ??= { v: make() };
      return value.v;
    };
  };
  const isTTY = once(() => forced || isatty(1));
  const errIsTTY = once(() => forced || isatty(2));
  const inIsTTY = once(() => forced || isatty(0));
  const chalk = once(() => new Chalk({ level: colorLevel(isTTY(), env) }));
  const stdout = output(1);
  const stderr = output(2);
  return {
    out: (text) => void stdout.write(text),
    err: (text) => void stderr.write(text),
    write: async (chunk) => {
      if (!stdout.write(chunk)) await drained(stdout.stream(), false);
    },
    async prompt(question) {
      stderr.write(question);
      for await (const line of console) return line;
      return null;
    },
    input: () => new Response(Bun.stdin.stream()).text(),
    get isTTY() {
      return isTTY();
    },
    get errIsTTY() {
      return errIsTTY();
    },
    get inIsTTY() {
      return inIsTTY();
    },
    get chalk() {
      return chalk();
    },
    env,
  };
}
