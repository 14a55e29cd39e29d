import { ApiError, CLIENT_CLOSED_STATUS, ClientClosedRequest, internalError, isDatabaseUnavailable, unavailableError } from "../errors.ts";
import { errorFragment, errorPage, VISITOR_PAGE_CSP } from "./pages.ts";

/** A JSON answer. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json; charset=utf-8", ...headers } });
}

/** An HTML answer. */
export function html(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });
}

export const noContent = (headers: Record<string, string> = {}) => new Response(null, { status: 204, headers });

/** True when the client asked for JSON (`fetch` with Accept: application/json) rather than a browser page. */
export const wantsJson = (request: Request) => (request.headers.get("accept") ?? "").toLowerCase().includes("application/json");

/**
 * The error answer of docs/api.md ("Errors"): JSON; or for a browser's form post a small page with a link back,
 * in the visitor's `language`; or for htmx
 * (`fragment`) a 200 fragment to swap in, since htmx swaps nothing of an error status by default.
 */
export function errorResponse(
  error: unknown,
  options: { html?: boolean; fragment?: boolean; referer?: string | null; language?: string; onInternal?: (error: unknown) => void } = {},
): Response {
  let apiError: ApiError;
  if (error instanceof ApiError) {
    apiError = error;
  } else if (error instanceof ClientClosedRequest) {
    // No one reads this answer; its status tells the request log and the metrics what happened.
    return new Response(null, { status: CLIENT_CLOSED_STATUS });
  } else {
    options.onInternal?.(error);
    apiError = isDatabaseUnavailable(error) ? unavailableError() : internalError();
  }
  const items = apiError.items ?? [];
  if (options.fragment) return html(200, errorFragment(apiError.message, items), apiError.headers);
  if (options.html) {
    const page = errorPage(apiError.status, apiError.message, options.referer ?? null, items, options.language);
    return html(apiError.status, page, { ...apiError.headers, "Content-Security-Policy": VISITOR_PAGE_CSP });
  }
  return json(apiError.status, apiError.toBody(), apiError.headers);
}
