// Text in the charset it was sent in: the request's `charset`, a multipart part's own, or the form's `_charset_`
// field. A charset formsvc cannot decode is 415, and bytes that are not valid in the charset in force are 400:
// nothing is ever stored with replacement characters in place of what was typed.
import { ApiError } from "../errors.ts";

/** The hidden field browsers fill with the charset they encoded the form in (HTML's `_charset_`); never stored. */
export const CHARSET_FIELD = "_charset_";

const decoders = new Map<string, TextDecoder>();

/** A decoder for `label` that refuses invalid bytes; 415 unsupported_charset for a label it does not know. */
export function decoderFor(label: string): TextDecoder {
  const key = label.trim().toLowerCase();
  let decoder = decoders.get(key);
  if (!decoder) {
    try {
      decoder = new TextDecoder(key, { fatal: true });
    } catch {
      throw new ApiError("unsupported_charset", `The charset "${key.slice(0, 40)}" is not one formsvc can decode; send the form as UTF-8.`);
    }
    if (decoders.size < 64) decoders.set(key, decoder);
  }
  return decoder;
}

/** `bytes` as text in `charset`; 400 invalid_body (naming the field) when they are not valid in it. */
export function decodeText(bytes: Uint8Array, charset: string, field?: string): string {
  const decoder = decoderFor(charset);
  try {
    return decoder.decode(bytes);
  } catch {
    const where = field === undefined ? "The body" : `The value of ${field.slice(0, 200)}`;
    throw new ApiError(
      "invalid_body",
      `${where} is not valid ${decoder.encoding}. A form on a page in another charset must say which: add <input type="hidden" name="_charset_"> to it.`,
      {
        ...(field === undefined ? {} : { field: field.slice(0, 200) }),
      },
    );
  }
}

/** The `charset` parameter of a Content-Type value, lowercased, or null. */
export function charsetParam(contentType: string | null | undefined): string | null {
  const found = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? "");
  return found ? found[1]!.toLowerCase() : null;
}

const PLUS = 0x2b;
const PERCENT = 0x25;
const hex = (byte: number) => (byte >= 0x30 && byte <= 0x39 ? byte - 0x30 : (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66 ? (byte | 0x20) - 0x57 : -1);

/** One name or value of an urlencoded body as bytes: `+` is a space, `%XX` a byte, anything else itself. */
function unescapeBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!;
    if (byte === PLUS) out[n++] = 0x20;
    else if (byte === PERCENT && i + 2 < bytes.length && hex(bytes[i + 1]!) >= 0 && hex(bytes[i + 2]!) >= 0) {
      out[n++] = hex(bytes[i + 1]!) * 16 + hex(bytes[i + 2]!);
      i += 2;
    } else out[n++] = byte;
  }
  return out.subarray(0, n);
}

/** Splits `bytes` at every `separator` byte. */
function split(bytes: Uint8Array, separator: number): Uint8Array[] {
  const parts: Uint8Array[] = [];
  let start = 0;
  for (let i = 0; i <= bytes.length; i++) {
    if (i === bytes.length || bytes[i] === separator) {
      parts.push(bytes.subarray(start, i));
      start = i + 1;
    }
  }
  return parts;
}

/**
 * The pairs of an urlencoded body, decoded in the request's charset, else the one its `_charset_` field names,
 * else UTF-8. `_charset_` itself is left out.
 */
export function parseUrlencoded(bytes: Uint8Array, requestCharset: string | null): [string, string][] {
  const raw = split(bytes, 0x26)
    .filter((pair) => pair.length > 0)
    .map((pair) => {
      const at = pair.indexOf(0x3d);
      return at < 0 ? [unescapeBytes(pair), new Uint8Array(0)] : [unescapeBytes(pair.subarray(0, at)), unescapeBytes(pair.subarray(at + 1))];
    }) as [Uint8Array, Uint8Array][];
  const ascii = new TextDecoder("latin1");
  const named = raw.find(([name]) => ascii.decode(name) === CHARSET_FIELD);
  const charset = requestCharset ?? (named && named[1].length > 0 ? ascii.decode(named[1]) : "utf-8");
  const pairs: [string, string][] = [];
  for (const [nameBytes, valueBytes] of raw) {
    const name = decodeText(nameBytes, charset);
    if (name === CHARSET_FIELD) continue;
    pairs.push([name, decodeText(valueBytes, charset, name)]);
  }
  return pairs;
}
