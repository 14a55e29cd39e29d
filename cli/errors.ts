import { ApiError, type ErrorCode } from "../src/errors.ts";

/** Exit codes (docs/cli.md, "Exit codes"). */
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4, notFound: 5, newerAvailable: 10 } as const;

/** A failure of the CLI itself (bad flags, no server), with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** A command that succeeded and answers with its exit code too (plan: 2, changes pending; update --check: 10, a newer release exists): nothing is printed. */
export class ExitStatus extends Error {
  constructor(readonly exitCode: number) {
    super(`exit status ${exitCode}`);
    this.name = "ExitStatus";
  }
}

/** Commands whose exit code 2 means something else than a usage error (plan: changes pending): their usage errors exit 1. */
export const USAGE_EXITS_1 = new Set(["plan", "apply"]);

const EXIT_FOR_CODE: Partial<Record<ErrorCode, number>> = {
  unauthorized: EXIT.auth,
  forbidden: EXIT.auth,
  not_found: EXIT.notFound,
  form_not_found: EXIT.notFound,
  // The CLI builds bodies and queries from flags: a value the API refuses is a bad value given on the command line.
  invalid_parameter: EXIT.usage,
  invalid_body: EXIT.usage,
};

/** The exit code for an error of the API (local or remote): 4 for refused, 5 for not found, 2 for a bad value. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof CliError) return error.exitCode;
  if (error instanceof ApiError) return EXIT_FOR_CODE[error.code] ?? EXIT.error;
  return EXIT.error;
}

/** Puts the command-line flag in front of an API error about one field ("--email: ..."), so the user knows what to change. */
export function withFlagName(error: unknown, flags: Readonly<Record<string, string>>): unknown {
  if (!(error instanceof ApiError) || !error.field || !(error.code === "invalid_body" || error.code === "invalid_parameter")) return error;
  const flag = flags[error.field];
  if (!flag) return error;
  // "notificationEmail must be an email address" reads better as "--email must be an email address".
  const message = error.message.startsWith(`${error.field} `) ? `${flag}${error.message.slice(error.field.length)}` : `${flag}: ${error.message}`;
  return new ApiError(error.code, message, { field: error.field, cause: error });
}
