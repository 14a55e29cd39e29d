const PREFIXES = {
  form: "frm",
  submission: "sub",
  key: "key",
  account: "acc",
  notification: "ntf",
  user: "usr",
  file: "fil",
  webhook: "whk",
  destination: "dst",
  delivery: "dlv",
  message: "msg",
  request: "req",
  activity: "act",
} as const;
export type IdKind = keyof typeof PREFIXES;

// Crockford base32 in lowercase: sorts in the same order as the numbers it encodes.
const BASE32 = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10; // 50 bits of milliseconds: good until the year 37648

let lastTime = -1;
// The 60 random bits (12 characters) as two numbers of 30 bits (high, low): plain numbers, no BigInt, on the path of every post.
let randomHigh = 0;
let randomLow = 0;
const BITS_30 = 2 ** 30;
// Random words drawn 512 at a time: one call to the system's generator per 256 ids that need fresh bits.
const pool = new Uint32Array(512);
let pooled = 0;

/** `value` (a whole number below 2^53) as `width` base-32 characters, most significant first. */
function encode(value: number, width: number): string {
  let out = "";
  let rest = value;
  for (let i = 0; i < width; i++) {
    out = BASE32[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

// Every 10-bit number as its two characters: 30 random bits are three look-ups, not six divisions and six
// strings joined (the ids were 7% of a post's profile).
const PAIRS = Array.from({ length: 1024 }, (_, n) => encode(n, 2));
const encode30 = (value: number) => PAIRS[value >>> 20]! + PAIRS[(value >>> 10) & 1023]! + PAIRS[value & 1023]!;
// The time's characters of the last id: most ids of a busy moment share their millisecond.
let timeText = "";

/**
 * A new id such as `sub_01jd3k…`: a type prefix, the creation time, then randomness. Ids made by one
 * process only ever grow, even within one millisecond, so ordering by id follows creation order.
 */
export function newId(kind: IdKind, now = Date.now()): string {
  if (now <= lastTime) {
    // The next number after the last one, wrapping at 2^60 as the 12 characters do.
    randomLow += 1;
    if (randomLow === BITS_30) {
      randomLow = 0;
      randomHigh = (randomHigh + 1) % BITS_30;
    }
  } else {
    lastTime = now;
    timeText = encode(now, TIME_CHARS);
    if (pooled === 0) {
      crypto.getRandomValues(pool);
      pooled = pool.length;
    }
    randomHigh = pool[--pooled]! % BITS_30;
    randomLow = pool[--pooled]! % BITS_30;
  }
  return `${PREFIXES[kind]}_${timeText}${encode30(randomHigh)}${encode30(randomLow)}`;
}
