import { Agent, request } from "undici";
import { ApiError, ERROR_STATUS, type ErrorCode } from "../src/errors.ts";
import { CliError, EXIT } from "./errors.ts";

const STATUS_TEXT: Record<number, string> = {
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

/** The management API over HTTP, for remote mode. */
export class ApiClient {
  private readonly agent: Agent;

  /** `timeoutMs`: how long to wait for the server to connect and start answering (not for a streamed body to end). */
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.agent = new Agent({ connect: { timeout: timeoutMs } });
  }

  /**
   * Waits for `ask` to have the answer's headers, at most timeoutMs: under Bun, "undici" is Bun's own module,
   * which ignores the Agent's connect timeout, so a server that takes the connection and never answers would
   * hold the command for ever. The signal is cleared once the headers arrive, so a long export streams on. A
   * server that cannot be reached is a CliError naming its address.
   */
  private async reach<T>(ask: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const waiting = new AbortController();
    const timer = setTimeout(() => waiting.abort(), this.timeoutMs);
    try {
      return await ask(waiting.signal);
    } catch (error) {
      if (waiting.signal.aborted) throw new CliError(`the server at ${this.baseUrl} did not answer within ${this.timeoutMs / 1000} s`);
      const reason = (error as { code?: string }).code ?? (error as Error).message;
      throw new CliError(`cannot reach the server at ${this.baseUrl} (${reason})`);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends one request; an error answer becomes the server's ApiError, a missing server a CliError naming the URL. */
  async send(method: string, path: string, options: { body?: unknown; query?: Record<string, string | number | undefined> } = {}) {
    const url = this.url(path, options.query);
    const response = await this.reach((signal) =>
      request(url, {
        method: method as "GET",
        dispatcher: this.agent,
        signal,
        headers: {
          authorization: `Bearer ${this.key}`,
          accept: "application/json",
          ...(options.body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      }),
    );
    if (response.statusCode >= 400) throw await this.errorOf(response);
    return response;
  }

  /**
   * A request whose answer is a download (an export, a file): its body as the web stream of Bun's own fetch.
   * The undici answer wraps the same bytes in a Node stream and back, which cost a remote export a third of
   * its time on a busy machine.
   */
  async download(method: string, path: string, options: { query?: Record<string, string | number | undefined> } = {}): Promise<ReadableStream<Uint8Array>> {
    const url = this.url(path, options.query);
    const response = await this.reach((signal) => fetch(url, { method, headers: { authorization: `Bearer ${this.key}` }, signal }));
    if (response.status >= 400) throw this.errorFrom(response.status, await response.text());
    return response.body ?? new Response("").body!;
  }

  /** A request whose answer is JSON (or nothing, for 204). */
  async json<T>(method: string, path: string, options: Parameters<ApiClient["send"]>[2] = {}): Promise<T> {
    const response = await this.send(method, path, options);
    if (response.statusCode === 204) {
      await response.body.text();
      return undefined as T;
    }
    return (await response.body.json()) as T;
  }

  private url(path: string, query: Record<string, string | number | undefined> = {}): URL {
    const url = new URL(`${this.baseUrl.replace(/\/+$/, "")}${path}`);
    for (const [name, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(name, String(value));
    return url;
  }

  private async errorOf(response: Awaited<ReturnType<typeof request>>): Promise<Error> {
    return this.errorFrom(response.statusCode, await response.body.text());
  }

  private errorFrom(status: number, text: string): Error {
    try {
      const { error } = JSON.parse(text) as { error: { code: ErrorCode; message: string; field?: string } };
      if (error && error.code in ERROR_STATUS) return new ApiError(error.code, error.message, { field: error.field });
    } catch {
      // not our error shape: fall through
    }
    // Not formsvc's error shape (a proxy, another program on that port): the status alone decides the exit code.
    const exitCode = status === 401 || status === 403 ? EXIT.auth : status === 404 ? EXIT.notFound : EXIT.error;
    return new CliError(`the server at ${this.baseUrl} answered ${status} ${STATUS_TEXT[status] ?? ""}`.trimEnd(), exitCode);
  }

  async close(): Promise<void> {
    // Under Bun, "undici" is Bun's own module: request() runs on fetch and Agent is an empty stand-in without close().
    const agent = this.agent as Partial<Agent>;
    if (typeof agent.close === "function") await agent.close();
  }
}
