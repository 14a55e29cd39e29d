// Request bodies sent compressed (`Content-Encoding: gzip | deflate | br`) are inflated as they are read, so the
// body limit counts what the body becomes, and a decompression bomb stops at the limit with memory flat.
import { ApiError } from "../errors.ts";

const FORMATS: Record<string, CompressionFormat | "brotli"> = { gzip: "gzip", "x-gzip": "gzip", deflate: "deflate", br: "brotli" };

/** The body as it was meant to be read: inflated when it came compressed; 415 for an encoding formsvc cannot undo. */
export function decodedBody(request: Request): ReadableStream<Uint8Array> | null {
  const encoding = (request.headers.get("content-encoding") ?? "").trim().toLowerCase();
  if (encoding === "" || encoding === "identity") return request.body;
  const format = FORMATS[encoding];
  if (!format) {
    throw new ApiError(
      "unsupported_encoding",
      `The Content-Encoding "${encoding.slice(0, 40)}" is not one formsvc can decode; send gzip, deflate, br or none.`,
    );
  }
  if (!request.body) return null;
  return request.body.pipeThrough(new DecompressionStream(format as CompressionFormat));
}

/** True when the request's body came compressed (so its Content-Length says nothing of its size once read). */
export const isEncoded = (request: Request) => !["", "identity"].includes((request.headers.get("content-encoding") ?? "").trim().toLowerCase());

/** The error of a compressed body that does not inflate. */
export const undecodable = () => new ApiError("invalid_body", "The body could not be decompressed as its Content-Encoding says.");
