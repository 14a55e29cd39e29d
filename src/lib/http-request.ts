// One HTTP request of the outbox (a webhook's POST, a destination's calls), to addresses checked as webhooks'
// are (docs/api.md, "Webhooks"): the guard is in the connection itself, so a name cannot pass the check and
// then connect elsewhere.
import { BlockedAddress, checkedAddresses, hostBlockedReason, type Resolver } from "./address.ts";

/** How much of an answer the delivery log keeps. */
export const SNIPPET = 500;
/** The most of an answer read (a destination reads a token or a database's schema from it). */
const MAX_ANSWER = 256 * 1024;

export interface RequestOptions {
  allowPrivate: boolean;
  resolve: Resolver;
  timeoutMs: number;
  signal: AbortSignal;
}

/** What one request got: its status (null when none came), its text (bounded), a snippet for the log, or the error. */
export interface Answer {
  ok: boolean;
  status: number | null;
  text: string;
  snippet: string | null;
  durationMs: number;
  error: string | null;
}

/** A line of text fit for the log and the delivery list: no control characters, bounded. */
export const oneLine = (text: string) =>
  text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim()
    .slice(0, SNIPPET);

/**
 * Sends one request to the very addresses that were checked: the connection's own look-up is replaced by
 * one that resolves, refuses any special address and hands over what it checked, so that a name cannot
 * resolve to a public address for the check and a private one for the connection. Redirects are not followed.
 */
export function requestOnce(url: URL, init: { method: string; headers: Record<string, string>; body?: string }, options: RequestOptions): Promise<Answer> {
  const started = performance.now();
  const result = (partial: Partial<Answer>): Answer => ({
    ok: false,
    status: null,
    text: "",
    snippet: null,
    error: null,
    durationMs: performance.now() - started,
    ...partial,
  });
  return new Promise<Answer>((done) => {
    const lookup = (host: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const found = options.allowPrivate ? options.resolve(host) : checkedAddresses(host, options.resolve);
      found.then(
        (addresses) => (lookupOptions?.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (error: unknown) => callback(error),
      );
    };
    // An address written in the URL, or a name such as localhost, is refused before any connection is tried.
    const blocked = options.allowPrivate ? null : hostBlockedReason(url.hostname);
    // Node's HTTP client is loaded by the first delivery, not by every start of the server.
    const precheck: Promise<typeof import("node:http")> = blocked
      ? Promise.reject(new BlockedAddress(blocked))
      : url.protocol === "https:"
        ? (import("node:https") as unknown as Promise<typeof import("node:http")>)
        : import("node:http");
    precheck.then(
      (client) => {
        const headers = init.body === undefined ? init.headers : { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) };
        const request = client.request(
          url,
          { method: init.method, headers, lookup: lookup as never, signal: options.signal, timeout: options.timeoutMs },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on("data", (chunk: Buffer) => {
              if (size < MAX_ANSWER) chunks.push(chunk);
              size += chunk.length;
              if (size >= MAX_ANSWER) response.destroy();
            });
            let finished = false;
            const finish = () => {
              if (finished) return;
              finished = true;
              const status = response.statusCode ?? 0;
              const text = Buffer.concat(chunks).toString("utf8");
              const ok = status >= 200 && status < 300;
              done(result({ ok, status, text, snippet: oneLine(text) || null, error: ok ? null : `answered ${status}` }));
            };
            response.on("end", finish);
            response.on("close", finish);
            response.on("error", finish);
          },
        );
        const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
        request.on("close", () => clearTimeout(timer));
        request.on("timeout", () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
        request.on("error", (error: Error) =>
          done(result({ error: oneLine(error instanceof BlockedAddress ? `refused: ${error.message}` : error.message || String(error)) })),
        );
        request.end(init.body);
      },
      (error: Error) => done(result({ error: oneLine(`refused: ${error.message}`) })),
    );
  });
}
