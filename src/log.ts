import { CLIENT_CLOSED_STATUS } from "./errors.ts";
import type { AccessEntry, AppOptions } from "./http/context.ts";

// What a terminal or a log viewer would act on: a user agent is the client's text, shown, never obeyed.
const UNSAFE_IN_LOG = /[\u0000-\u001f\u007f-\u009f"\\]/g;

/** One request as a line of text: `GET /f/contact 303 1.2ms 203.0.113.7 "Mozilla/5.0 …" req_01m8…`. */
export function accessLine(entry: AccessEntry): string {
  const agent = entry.userAgent === null ? "-" : `"${entry.userAgent.replace(UNSAFE_IN_LOG, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`)}"`;
  const status = entry.status === CLIENT_CLOSED_STATUS ? `${entry.status} (client closed the connection)` : String(entry.status);
  return `${entry.method} ${entry.path} ${status} ${entry.ms.toFixed(1)}ms ${entry.ip} ${agent} ${entry.requestId}`;
}

/** The server's log: text lines for people, or one JSON object a line for log shippers (`--log-format json`). */
export function serverLog(format: "text" | "json", out: (line: string) => void = console.log, err: (line: string) => void = console.error): AppOptions["log"] {
  const now = () => new Date().toISOString();
  if (format === "json") {
    return {
      request: (message) => out(JSON.stringify({ time: now(), level: "info", msg: message })),
      access: (entry: AccessEntry) => out(JSON.stringify({ time: now(), level: "info", msg: "request", ...entry, ms: Number(entry.ms.toFixed(1)) })),
      error: (message, error, requestId) =>
        err(
          JSON.stringify({
            time: now(),
            level: "error",
            msg: message,
            requestId,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          }),
        ),
    };
  }
  return {
    request: (line) => out(`${now()} ${line}`),
    access: (entry: AccessEntry) => out(`${now()} ${accessLine(entry)}`),
    error: (message, error, requestId) =>
      err(`${now()} ${message}${requestId ? ` (request ${requestId})` : ""}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`),
  };
}
