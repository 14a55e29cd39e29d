// A stand-in for a formsvc server, for the remote CLI's tests (the GitHub CLI's httpmock.Registry): each
// request is answered by the stub registered for its method and path, and recorded, so that a test can say
// what the CLI sent (method, path, query, key, body) and what it made of the answer. A request no stub
// expects is answered 501 and fails `verify`, as does a stub no request used.

/** One request as the server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

type Answer = Response | ((request: RecordedRequest) => Response | Promise<Response>);

export interface HttpRecorder {
  url: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Answers the next request of this method and path (without its query) with `answer`. */
  on(method: string, path: string, answer: Answer): void;
  /** Throws when a request found no stub or a stub found no request. */
  verify(): void;
  stop(): void;
}

/** A JSON answer, as formsvc gives it. */
export const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });

/** Starts the stand-in on a free port of 127.0.0.1. */
export function httpRecorder(): HttpRecorder {
  const stubs: { method: string; path: string; answer: Answer; used: boolean }[] = [];
  const requests: RecordedRequest[] = [];
  const unexpected: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = await request.text();
      const recorded: RecordedRequest = {
        method: request.method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        authorization: request.headers.get("authorization"),
        contentType: request.headers.get("content-type"),
        body: text === "" ? undefined : JSON.parse(text),
      };
      requests.push(recorded);
      const stub = stubs.find((s) => !s.used && s.method === request.method && s.path === url.pathname);
      if (!stub) {
        unexpected.push(`${request.method} ${url.pathname}`);
        return new Response("no stub for this request", { status: 501 });
      }
      stub.used = true;
      return typeof stub.answer === "function" ? stub.answer(recorded) : stub.answer;
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    on: (method, path, answer) => void stubs.push({ method, path, answer, used: false }),
    verify() {
      const unused = stubs.filter((s) => !s.used).map((s) => `${s.method} ${s.path}`);
      if (unexpected.length || unused.length)
        throw new Error(`requests without a stub: ${unexpected.join(", ") || "none"}; stubs never asked: ${unused.join(", ") || "none"}`);
    },
    stop: () => void server.stop(true),
  };
}
