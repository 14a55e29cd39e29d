import { ApiError, ClientClosedRequest } from "../errors.ts";
import { MAX_JSON_DEPTH, scanJson } from "../lib/json-scan.ts";
import { charsetParam, decodeText, parseUrlencoded } from "./charset.ts";
import { decodedBody, isEncoded, undecodable } from "./encoding.ts";

// What is left of the body is read and discarded by the server after the answer is made (drain.ts), so that
// a proxy that writes the whole body before it reads gets this answer.
const tooLarge = (limit: number) => new ApiError("payload_too_large", `The body is larger than the limit of ${limit} bytes.`);

/** The request's body as bytes (inflated when compressed), refused with 413 as soon as it passes `limit` (by Content-Length, or while reading). */
export async function readBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  const encoded = isEncoded(request);
  const body = decodedBody(request);
  if (!body) return new Uint8Array(0);
  // With a declared length (checked above) the body is that long at most: read it whole, which costs a
  // fraction of iterating the stream chunk by chunk. Only a chunked or compressed body is counted as it arrives.
  if (!encoded && request.headers.has("content-length")) return readWhole(request);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        // Released, not cancelled: the server discards the rest before it answers.
        reader.releaseLock();
        throw tooLarge(limit);
      }
      chunks.push(value);
    }
  } catch (error) {
    void reader.cancel().catch(() => undefined);
    if (error instanceof ApiError) throw error;
    // A client that drops the connection mid-body is not a failure of ours: one short line, no stack, no 500.
    if (request.signal.aborted || (error instanceof Error && error.name === "AbortError")) throw new ClientClosedRequest({ cause: error });
    if (encoded) throw undecodable();
    throw error;
  }
  return Buffer.concat(chunks);
}

async function readWhole(request: Request): Promise<Uint8Array> {
  try {
    return new Uint8Array(await request.arrayBuffer());
  } catch (error) {
    if (request.signal.aborted || (error instanceof Error && error.name === "AbortError")) throw new ClientClosedRequest({ cause: error });
    throw error;
  }
}

/**
 * Throws ClientClosedRequest when the HTTP layer has given up on `request` once it parsed the bytes that came
 * with it. Bun (1.4.4 and 1.4.5 alike) goes on parsing what follows a request in the same read while the app's
 * answer is pending: a pipelined request, a chunked body's trailer section or bytes that are not HTTP make it
 * close the connection, or answer 400 itself, and abort the request, whose answer is then never written. It
 * does so within one turn of the event loop, so a post that waits for that turn is refused before it is stored
 * rather than stored and left unanswered (the client would retry it: a duplicate).
 */
export async function acceptedWhole(request: Request): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (request.signal.aborted) throw new ClientClosedRequest();
}

/** The media type of the request, lowercased, without parameters. */
export const mediaType = (request: Request) => (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

/**
 * Parses a JSON body. Nesting deeper than MAX_JSON_DEPTH is refused before any object is built (a linear
 * scan of the text), so that a post of 40,000 brackets costs microseconds and never reaches the store.
 * With `exactNumbers`, a number a double cannot hold (1e400, 2^53 + 1, 0.1000000000000000000001) is refused
 * naming its field, rather than stored as a different number.
 */
function parseJson(bytes: Uint8Array, { exactNumbers = false } = {}): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
  const scan = scanJson(text);
  if (scan.tooDeep) throw new ApiError("invalid_body", `The body nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
  if (exactNumbers && scan.inexactNumberField !== null && typeof body === "object" && body !== null && !Array.isArray(body)) {
    // A field name is the client's text: echoed back no longer than the longest name a submission may have.
    const field = scan.inexactNumberField.slice(0, 200);
    throw new ApiError(
      "invalid_body",
      `${field} holds a number that cannot be stored exactly (too large, too small or too precise); send it as a string to keep every digit.`,
      { field },
    );
  }
  return body;
}

/** A management request's JSON body. */
export async function readJson(request: Request, limit: number): Promise<unknown> {
  // Size before type, as for submissions: an oversized body is 413 whatever it claims to be.
  const bytes = await readBytes(request, limit);
  if (mediaType(request) !== "application/json") {
    throw new ApiError("unsupported_media_type", "Send the body as JSON with Content-Type: application/json.");
  }
  return parseJson(bytes);
}

/** Adds a value under `key`, turning a key sent several times (a checkbox group) into an array. */
function addField(fields: Record<string, unknown>, key: string, value: unknown): void {
  if (!Object.hasOwn(fields, key)) fields[key] = value;
  else if (Array.isArray(fields[key])) (fields[key] as unknown[]).push(value);
  else fields[key] = [fields[key], value];
}

/**
 * A public submission's fields, from JSON or urlencoded bodies; JSON values are kept as sent. Multipart
 * bodies, which may carry files, are read as a stream by readMultipart (multipart.ts).
 */
export async function readSubmission(request: Request, limit: number): Promise<Record<string, unknown>> {
  const type = mediaType(request);
  // Size before type: a body over the limit is 413 whatever it claims to be, as docs/api.md orders the checks ("Order of checks").
  const bytes = await readBytes(request, limit);
  if (type === "application/json") {
    // JSON is UTF-8 (RFC 8259); a body that names another charset is read in it, as it says.
    const charset = charsetParam(request.headers.get("content-type"));
    const text = charset && charset !== "utf-8" && charset !== "utf8" ? new TextEncoder().encode(decodeText(bytes, charset)) : bytes;
    const body = parseJson(text, { exactNumbers: true });
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ApiError("invalid_body", "The body must be a JSON object of field names and values.");
    }
    return body as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") {
    const fields: Record<string, unknown> = Object.create(null); // no prototype: a field named __proto__ stays a field
    for (const [key, value] of parseUrlencoded(bytes, charsetParam(request.headers.get("content-type")))) addField(fields, key, value);
    return fields;
  }
  throw new ApiError(
    "unsupported_media_type",
    "Send the form as application/x-www-form-urlencoded, multipart/form-data or application/json (with that Content-Type).",
  );
}
