/**
 * At most this many bytes of a body the app answered without reading (a 413, 429, 404 or 415) are read
 * and thrown away, so that a reverse proxy that sends the whole body before reading the answer (nginx
 * does) gets to read it; a longer body is answered with the connection closed.
 */
export const DRAIN_LIMIT = 16 * 1024 * 1024;

/** How long a slow client may take to send what is left of such a body. */
const DRAIN_MS = 10_000;

/**
 * Reads and discards what is left of the request's body, up to DRAIN_LIMIT bytes and DRAIN_MS; true when
 * it reached the end (the connection may be kept), false when it gave up (close it after the answer).
 */
export async function drainBody(request: Request): Promise<boolean> {
  const body = request.body;
  if (!body || body.locked) return true;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > DRAIN_LIMIT) return false;
  const reader = body.getReader();
  let late = false;
  const timer = setTimeout(() => {
    late = true;
    void reader.cancel().catch(() => undefined);
  }, DRAIN_MS);
  let size = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return !late;
      size += value.byteLength;
      if (size > DRAIN_LIMIT) return false;
    }
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
