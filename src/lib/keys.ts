import { randomBase62, toBase62 } from "./random.ts";

export type KeyType = "live" | "test" | "form";
const PREFIX: Record<KeyType, string> = { live: "sk_live_", test: "sk_test_", form: "fk_" };
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^(sk_live_|sk_test_|fk_)([0-9A-Za-z]{32,})$/;

function checksum(body: string): string {
  return toBase62(Bun.hash.crc32(body), CHECKSUM_LENGTH);
}

/**
 * A new secret key: its type's prefix, 32 random base62 characters (190 bits) and a 6-character CRC32
 * checksum, so that a secret scanner (or we) can tell a real key from a typo without a database look-up.
 */
export function generateKey(type: KeyType): string {
  const body = randomBase62(RANDOM_LENGTH);
  return `${PREFIX[type]}${body}${checksum(body)}`;
}

/** The key's type when it is well formed and its checksum holds, else null. */
export function parseKey(key: string): KeyType | null {
  const match = KEY_PATTERN.exec(key);
  if (!match) return null;
  const [, prefix, rest] = match as unknown as [string, string, string];
  const body = rest.slice(0, -CHECKSUM_LENGTH);
  if (body.length < RANDOM_LENGTH || checksum(body) !== rest.slice(-CHECKSUM_LENGTH)) return null;
  return (Object.keys(PREFIX) as KeyType[]).find((t) => PREFIX[t] === prefix) ?? null;
}

/** What is stored in place of the key: its SHA-256, hex. */
export function hashKey(key: string): string {
  return new Bun.CryptoHasher("sha256").update(key).digest("hex");
}

/** The start of a key shown in lists (`sk_live_Ab12…`), enough to tell keys apart, useless to an attacker. */
export function displayPrefix(key: string): string {
  const prefix = key.startsWith("fk_") ? 3 : 8;
  return `${key.slice(0, prefix + 4)}…`;
}
