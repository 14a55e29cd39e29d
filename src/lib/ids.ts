const PREFIXES = {
  form: "frm",
  submission: "sub",
  key: "key",
  account: "acc",
  notification: "ntf",
  user: "usr",
  file: "fil",
  webhook: "whk",
  delivery: "dlv",
  message: "msg",
  request: "req",
} as const;
export type IdKind = keyof typeof PREFIXES;

// Crockford base32 in lowercase: sorts in the same order as the numbers it encodes.
const BASE32 = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37648
const RANDOM_CHARS = 12; // 60 bits

let lastTime = -1;
let lastRandom = 0n;

function encode(value: bigint, width: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE32[Number(rest & 31n)] + out;
    rest >>= 5n;
  }
  return out;
}

function randomBits60(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  return value & ((1n << 60n) - 1n);
}

/**
 * A new id such as `sub_01jd3k…`: a type prefix, the creation time, then randomness. Ids made by one
 * process only ever grow, even within one millisecond, so ordering by id follows creation order.
 */
export function newId(kind: IdKind, now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom += 1n;
  } else {
    lastTime = now;
    lastRandom = randomBits60();
  }
  return `${PREFIXES[kind]}_${encode(BigInt(lastTime), TIME_CHARS)}${encode(lastRandom, RANDOM_CHARS)}`;
}
