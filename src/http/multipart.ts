// multipart/form-data, read as a stream: parts are parsed as the bytes arrive, so a post over a limit is
// refused as soon as it passes it, and memory never holds more than the limits allow.
import { Busboy, type BusboyFileStream } from "@fastify/busboy";
import { ApiError } from "../errors.ts";
import { UploadedFile } from "../lib/files.ts";
import { CHARSET_FIELD, charsetParam, decodeText } from "./charset.ts";
import { decodedBody } from "./encoding.ts";

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

/** At most 10 files a submission (docs/api.md, "Files"). */
export const MAX_FILES = 10;
/**
 * At most this many parts in one post (fields and files; a checkbox group is one part per box), counted in
 * the bytes before the parser sees them: 115,000 empty parts in 1 MiB would otherwise cost the event loop
 * half a second and tens of MB.
 */
export const MAX_PARTS = 1_000;
/** At most this many headers in one part (a browser sends two or three). */
const MAX_PART_HEADERS = 8;

/**
 * Counts the parts of a multipart body as its chunks arrive, by their delimiters (`--boundary` after a line
 * break), keeping the end of each chunk so that a delimiter split between two chunks is counted once.
 */
function partCounter(contentType: string) {
  const boundary = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  const delimiter = Buffer.from(`\n--${boundary?.[1] ?? boundary?.[2] ?? ""}`);
  let carry = Buffer.alloc(0);
  let parts = 0;
  return (chunk: Uint8Array): number => {
    const text = Buffer.concat([carry, chunk]);
    for (let at = text.indexOf(delimiter); at !== -1; at = text.indexOf(delimiter, at + delimiter.length)) parts += 1;
    carry = text.subarray(Math.max(0, text.length - delimiter.length + 1));
    return parts;
  };
}

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

const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Whether a part's Content-Disposition (as the parser holds it: one byte a character) is UTF-8, as RFC 7578 asks. */
function isUtf8Header(disposition: string | undefined): boolean {
  if (disposition === undefined || !/[^\u0000-\u007f]/.test(disposition)) return true;
  try {
    UTF8.decode(Buffer.from(disposition, "latin1"));
    return true;
  } catch {
    return false;
  }
}

/**
 * The charset each part declares (`Content-Type: text/plain; charset=…`), read from the parser's own part headers,
 * and whether its name and file name are UTF-8 (busboy would turn other bytes into U+FFFD, and a field would be
 * stored under a name that was never sent).
 */
function onPartCharset(parser: InstanceType<typeof Busboy>, seen: (charset: string | null, utf8Names: boolean) => void): void {
  // Busboy reads the charset of a part but does not pass it on: its part parser (Dicer) is asked directly, after
  // busboy's own listener, so each part's header arrives right after busboy announced the part.
  const parts = (parser as unknown as { _parser?: { parser?: { on(event: "part", listener: (part: NodeJS.EventEmitter) => void): void } } })._parser?.parser;
  parts?.on("part", (part) =>
    part.on("header", (header: Record<string, string[]>) => seen(charsetParam(header["content-type"]?.[0]), isUtf8Header(header["content-disposition"]?.[0]))),
  );
}

/**
 * A multipart post's fields in the order they came, each file as an UploadedFile in its field's place. Text
 * fields are decoded by their part's charset, else the one the `_charset_` field names, else UTF-8 (see
 * charset.ts); `_charset_` is not kept. A file input left empty (no name, no bytes) is kept as "", as an empty
 * text input is. Refused: a body over maxBody (413), a file over maxFileSize (413), a file to a form that takes
 * none (400 files_not_accepted), more than maxFiles files (400 invalid_body), a body that is not well-formed
 * multipart (400 invalid_body), a charset formsvc cannot decode (415) and bytes invalid in theirs (400).
 */
export async function readMultipart(request: Request, limits: MultipartLimits): Promise<Record<string, unknown>> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > limits.maxBody) throw tooLarge(limits.maxBody);
  const fields: Record<string, unknown> = Object.create(null); // no prototype: a field named __proto__ stays a field
  // Text parts are kept as bytes until the end, when `_charset_` (wherever it came) is known.
  const texts: { name: string; slot: object; bytes: Uint8Array[]; charset: string | null }[] = [];
  let failure: ApiError | null = null;
  const fail = (error: ApiError) => {
    failure ??= error;
  };
  let parser: InstanceType<typeof Busboy>;
  try {
    parser = new Busboy({
      headers: { "content-type": request.headers.get("content-type") ?? "" },
      // Every part is read as bytes (text fields too, decoded here by their charset); a file is a part with a file name.
      isPartAFile: () => true,
      limits: { fileSize: Math.max(limits.maxFileSize, limits.maxBody), parts: MAX_PARTS, headerPairs: MAX_PART_HEADERS },
    });
  } catch {
    throw new ApiError("invalid_body", "The multipart body could not be read: its Content-Type names no boundary.");
  }
  let files = 0;
  let latest: { charset: string | null } | null = null;
  onPartCharset(parser, (charset, utf8Names) => {
    if (latest) latest.charset = charset;
    if (!utf8Names) fail(new ApiError("invalid_body", "A part's name or file name is not UTF-8: send names as UTF-8 (as browsers do)."));
  });
  parser.on("file", (name: string, stream: BusboyFileStream, fileName: string | undefined, _encoding: string, type: string) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    const slot = {};
    addField(fields, name, slot); // holds the field's place until the bytes are in
    if (fileName === undefined) {
      const text = { name, slot, bytes: chunks, charset: null as string | null };
      texts.push(text);
      latest = text;
      stream.on("data", (chunk: Uint8Array) => {
        if (!failure) chunks.push(chunk);
      });
      return;
    }
    latest = null;
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
    const fileTooLarge = () =>
      new ApiError("payload_too_large", `The file "${fileName.slice(0, 100)}" is larger than the limit of ${limits.maxFileSize} bytes.`, { field: name });
    // A part without a file name is a file input left empty (what a browser sends when nothing was chosen),
    // unless bytes come with it.
    if (fileName !== "") admit();
    // Read on even after a failure: the parser waits for every file stream to end.
    stream.on("data", (chunk: Uint8Array) => {
      if (failure) return;
      if (fileName === "" && size === 0) admit();
      size += chunk.byteLength;
      if (size > limits.maxFileSize) return fail(fileTooLarge());
      chunks.push(chunk);
    });
    stream.on("limit", () => fail(fileTooLarge()));
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

  const tooManyParts = () => fail(new ApiError("invalid_body", `A multipart body may have at most ${MAX_PARTS} parts.`));
  parser.on("partsLimit", tooManyParts);
  const countParts = partCounter(request.headers.get("content-type") ?? "");
  const reader = decodedBody(request)?.getReader();
  let size = 0;
  try {
    while (reader && !failure) {
      const { value, done } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBody) fail(tooLarge(limits.maxBody));
      // N parts have N or N + 1 delimiters after a line break: the closing one, and the first one after a preamble.
      else if (countParts(value) > MAX_PARTS + 1) tooManyParts();
      else await new Promise<void>((resolve, reject) => parser.write(value, (error?: Error | null) => (error ? reject(error) : resolve())));
    }
    if (failure) throw failure;
    parser.end();
    await finished;
    if (failure) throw failure;
    decodeTexts(fields, texts);
  } catch (error) {
    // What is left of a refused post is discarded by the server (drain.ts) before the answer goes out.
    reader?.releaseLock();
    parser.destroy();
    if (error instanceof ApiError) throw error;
    throw new ApiError("invalid_body", "The multipart body could not be read.");
  }
  return fields;
}

/** Puts each text part in its field's place, decoded by its own charset, else `_charset_`'s, else UTF-8. */
function decodeTexts(fields: Record<string, unknown>, texts: { name: string; slot: object; bytes: Uint8Array[]; charset: string | null }[]): void {
  const named = texts.find((text) => text.name === CHARSET_FIELD);
  const formCharset = named ? new TextDecoder("latin1").decode(Buffer.concat(named.bytes)).trim() || null : null;
  for (const text of texts) {
    const value = text.name === CHARSET_FIELD ? undefined : decodeText(Buffer.concat(text.bytes), text.charset ?? formCharset ?? "utf-8", text.name);
    const current = fields[text.name];
    if (Array.isArray(current)) {
      const at = current.indexOf(text.slot);
      if (value === undefined) current.splice(at, 1);
      else current[at] = value;
    } else if (value === undefined) delete fields[text.name];
    else fields[text.name] = value;
  }
}
