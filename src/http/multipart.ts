// multipart/form-data, read as a stream: parts are parsed as the bytes arrive, so a post over a limit is
// refused as soon as it passes it, and memory never holds more than the limits allow.
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import { ApiError } from "../errors.ts";
import { UploadedFile } from "../lib/files.ts";

export interface MultipartLimits {
  /** The whole post, in bytes (--max-body). */
  maxBody: number;
  /** One file, in bytes (--max-file-size). */
  maxFileSize: number;
  /** Files in one post. */
  maxFiles: number;
  /** False for a form without fileUploads: a file part is refused with 400 files_not_accepted. */
  filesAccepted: boolean;
}

/** At most 10 files a submission (contract §11). */
export const MAX_FILES = 10;

const tooLarge = (limit: number) => new ApiError("payload_too_large", `The body is larger than the limit of ${limit} bytes.`);

// A media type as RFC 6838 spells one; anything else a browser might send is kept as application/octet-stream.
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/** The part's declared type, lowercased, without parameters; application/octet-stream when it is missing or odd. */
function fileType(declared: string | undefined): string {
  const type = (declared ?? "").split(";")[0]!.trim().toLowerCase();
  return MEDIA_TYPE.test(type) ? type : "application/octet-stream";
}

/** Adds a value under `key`, turning a key sent several times (a checkbox group, several files) into an array. */
function addField(fields: Record<string, unknown>, key: string, value: unknown): void {
  if (!Object.hasOwn(fields, key)) fields[key] = value;
  else if (Array.isArray(fields[key])) (fields[key] as unknown[]).push(value);
  else fields[key] = [fields[key], value];
}

/**
 * A multipart post's fields in the order they came, each file as an UploadedFile in its field's place. A file
 * input left empty (no name, no bytes) is kept as "", as an empty text input is. Refused: a body over
 * maxBody (413), a file over maxFileSize (413), a file to a form that takes none (400 files_not_accepted),
 * more than maxFiles files (400 invalid_body), and a body that is not well-formed multipart (400 invalid_body).
 */
export async function readMultipart(request: Request, limits: MultipartLimits): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limits.maxBody) throw tooLarge(limits.maxBody);
  const fields: Record<string, unknown> = Object.create(null); // no prototype: a field named __proto__ stays a field
  let failure: ApiError | null = null;
  const fail = (error: ApiError) => {
    failure ??= error;
  };
  let parser: InstanceType<typeof Busboy>;
  try {
    parser = new Busboy({
      headers: { "content-type": request.headers.get("content-type") ?? "" },
      // A part is a file when it has a file name, whatever its type says.
      isPartAFile: (_field, _type, fileName) => fileName !== undefined,
      limits: { fileSize: limits.maxFileSize, fieldSize: limits.maxBody },
    });
  } catch {
    throw new ApiError("invalid_body", "The multipart body could not be read: its Content-Type names no boundary.");
  }
  let files = 0;
  parser.on("field", (name: string, value: string) => addField(fields, name, value));
  parser.on("file", (name: string, stream: BusboyFileStream, fileName: string, _encoding: string, type: string) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const slot = {};
    addField(fields, name, slot); // holds the field's place until the bytes are in
    const put = (value: unknown) => {
      const current = fields[name];
      if (Array.isArray(current)) current[current.indexOf(slot)] = value;
      else fields[name] = value;
    };
    const admit = () => {
      if (!limits.filesAccepted)
        return fail(new ApiError("files_not_accepted", "This form does not accept files. Its owner can turn file uploads on.", { field: name }));
      files += 1;
      if (files > limits.maxFiles) fail(new ApiError("invalid_body", `A submission may carry at most ${limits.maxFiles} files.`, { field: name }));
    };
    // A part without a file name is a file input left empty (what a browser sends when nothing was chosen),
    // unless bytes come with it.
    if (fileName !== "") admit();
    // Read on even after a failure: the parser waits for every file stream to end.
    stream.on("data", (chunk: Uint8Array) => {
      if (failure) return;
      if (fileName === "" && size === 0) admit();
      size += chunk.byteLength;
      chunks.push(chunk);
    });
    stream.on("limit", () =>
      fail(new ApiError("payload_too_large", `The file "${fileName.slice(0, 100)}" is larger than the limit of ${limits.maxFileSize} bytes.`, { field: name })),
    );
    stream.on("end", () => {
      if (failure) return;
      put(fileName === "" && size === 0 ? "" : new UploadedFile(fileName, fileType(type), Buffer.concat(chunks)));
    });
  });
  const finished = new Promise<void>((resolve, reject) => {
    parser.on("finish", resolve);
    parser.on("error", () => reject(new ApiError("invalid_body", "The multipart body could not be read.")));
  });
  finished.catch(() => undefined); // settled below; a parse error that comes first must not go unhandled

  const reader = request.body?.getReader();
  let size = 0;
  try {
    while (reader && !failure) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBody) fail(tooLarge(limits.maxBody));
      else await new Promise<void>((resolve, reject) => parser.write(value, (error?: Error | null) => (error ? reject(error) : resolve())));
    }
    if (failure) throw failure;
    parser.end();
    await finished;
    if (failure) throw failure;
  } catch (error) {
    // What is left of a refused post is discarded by the server (drain.ts) before the answer goes out.
    reader?.releaseLock();
    parser.destroy();
    if (error instanceof ApiError) throw error;
    throw new ApiError("invalid_body", "The multipart body could not be read.");
  }
  return fields;
}
