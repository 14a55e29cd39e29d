const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const LOWER36 = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random characters drawn uniformly from an alphabet (rejection sampling, so no character is favoured). */
export function randomChars(length: number, alphabet: string): string {
  const limit = 256 - (256 % alphabet.length);
  let out = "";
  while (out.length < length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      if (byte < limit) out += alphabet[byte % alphabet.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** Random base62 characters, as used in API keys. */
export const randomBase62 = (length: number) => randomChars(length, BASE62);

/** Random lowercase letters and digits, as used in slugs. */
export const randomLower36 = (length: number) => randomChars(length, LOWER36);

/** Encodes a non-negative integer in base62, left-padded with zeros to `width`. */
export function toBase62(value: number, width: number): string {
  let out = "";
  let rest = value;
  while (rest > 0) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out.padStart(width, "0");
}
