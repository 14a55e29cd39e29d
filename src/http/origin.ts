/** The page a request came from: its Origin, else its Referer, as the browser sent them. */
export function requestOrigin(request: Request): string | null {
  const origin = request.headers.get("origin");
  if (origin && origin !== "null") return origin;
  return request.headers.get("referer");
}
