import { ApiError } from "../errors.ts";

const tooLarge = (limit: number) => new ApiError("payload_too_large", `The body is larger than the limit of ${limit} bytes.`);

/** The request's body as bytes, refused with 413 as soon as it passes `limit` (by Content-Length, or while reading). */
export async function readBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  // With a declared length (checked above) the body is that long at most: read it whole, which costs a
  // fraction of iterating the stream chunk by chunk. Only a chunked body is counted as it arrives.
  if (request.headers.has("content-length")) return new Uint8Array(await request.arrayBuffer());
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge(limit);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The media type of the request, lowercased, without parameters. */
export const mediaType = (request: Request) => (request.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch {
    throw new ApiError("invalid_json", "The body is not valid JSON.");
  }
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
 * A public submission's fields, from JSON, urlencoded or multipart bodies. JSON values are kept as sent;
 * a file in a multipart body is kept as its name, type and size (files themselves are not stored).
 */
export async function readSubmission(request: Request, limit: number): Promise<Record<string, unknown>> {
  const type = mediaType(request);
  // Size before type: a body over the limit is 413 whatever it claims to be, as the contract orders the checks.
  const bytes = await readBytes(request, limit);
  if (type === "application/json") {
    const body = parseJson(bytes);
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      throw new ApiError("invalid_body", "The body must be a JSON object of field names and values.");
    }
    return body as Record<string, unknown>;
  }
  if (type === "application/x-www-form-urlencoded") {
    const fields: Record<string, unknown> = Object.create(null); // no prototype: a field named __proto__ stays a field
    for (const [key, value] of new URLSearchParams(new TextDecoder().decode(bytes))) addField(fields, key, value);
    return fields;
  }
  if (type === "multipart/form-data") {
    let form: FormData;
    try {
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { "content-type": request.headers.get("content-type")! } }).formData();
    } catch {
      throw new ApiError("invalid_body", "The multipart body could not be read.");
    }
    const fields: Record<string, unknown> = Object.create(null); // no prototype: a field named __proto__ stays a field
    for (const [key, value] of form as unknown as Iterable<[string, string | File]>) {
      addField(fields, key, typeof value === "string" ? value : { filename: value.name, type: value.type, size: value.size });
    }
    return fields;
  }
  throw new ApiError(
    "unsupported_media_type",
    "Send the form as application/x-www-form-urlencoded, multipart/form-data or application/json (with that Content-Type).",
  );
}
