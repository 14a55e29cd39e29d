import { newId } from "../lib/ids.ts";

// What an id from a proxy may be: short, and of characters that need no quoting in a log line, a header or HTML.
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The request's id: the X-Request-Id a trusted proxy sent (with --trust-proxy, and only a safe one of 64
 * characters at most), so that one id follows the request through the proxy's log and ours; else a new one.
 */
export function requestIdOf(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const given = request.headers.get("x-request-id");
    if (given && SAFE_ID.test(given)) return given;
  }
  return newId("request");
}

/**
 * The answer with its X-Request-Id header; a 5xx error also carries the id in its body (`error.requestId`,
 * or a line on an HTML page), so that whoever reads "the server log says more" can find the log's line.
 */
export async function withRequestId(response: Response, requestId: string): Promise<Response> {
  let answer = response;
  if (response.status >= 500 && response.body) {
    const type = response.headers.get("content-type") ?? "";
    if (type.startsWith("application/json")) answer = await rewrite(response, (text) => jsonWithId(text, requestId));
    else if (type.startsWith("text/html"))
      answer = await rewrite(response, (text) => text.replace("</body>", `<p><small>Request id: ${requestId}</small></p>\n</body>`));
  }
  try {
    answer.headers.set("X-Request-Id", requestId);
    return answer;
  } catch {
    // A Response.redirect() or a fetched answer has immutable headers: copy it to add ours.
    const copy = new Response(answer.body, answer);
    copy.headers.set("X-Request-Id", requestId);
    return copy;
  }
}

async function rewrite(response: Response, change: (text: string) => string): Promise<Response> {
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(change(await response.text()), { status: response.status, statusText: response.statusText, headers });
}

function jsonWithId(text: string, requestId: string): string {
  const body = JSON.parse(text) as { error?: Record<string, unknown> };
  if (!body.error || typeof body.error !== "object") return text;
  body.error.requestId = requestId;
  return JSON.stringify(body);
}
