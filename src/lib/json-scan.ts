// A linear pass over JSON text before it is parsed into objects: nesting that would make every later
// JSON.stringify overflow the stack is refused up front, and numbers that a double cannot hold are found,
// with the top-level field they sit under, so that they are refused rather than silently changed.

/** Deepest nesting of objects and arrays a body may have (the top-level object is level 1). */
export const MAX_JSON_DEPTH = 32;

export interface JsonScan {
  /** True when objects and arrays nest deeper than MAX_JSON_DEPTH. */
  tooDeep: boolean;
  /** The top-level field holding the first number that would not survive a round trip, or null. */
  inexactNumberField: string | null;
}

const OPEN_OBJECT = 0x7b; // {
const OPEN_ARRAY = 0x5b; // [
const CLOSE_OBJECT = 0x7d; // }
const CLOSE_ARRAY = 0x5d; // ]
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;

const isNumberStart = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2d;
const isNumberChar = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;

/** A decimal number as sign, significant digits and the exponent of the last digit: equal values, equal triples. */
function canonical(text: string): string {
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return text;
  const [, sign, whole = "", fraction = "", exponent = "0"] = match;
  let digits = whole + fraction;
  let exp = BigInt(exponent) - BigInt(fraction.length);
  digits = digits.replace(/^0+/, "");
  if (digits === "") return "0"; // -0 and 0 are the same number to a reader
  const trailing = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trailing);
  exp += BigInt(trailing);
  return `${sign}${digits}e${exp}`;
}

/** True when the number `text` reads back as the same decimal value once held as a double. */
export function numberSurvives(text: string): boolean {
  const value = Number(text);
  if (!Number.isFinite(value)) return false;
  // Fast path: the text is already the shortest form of its double (most numbers anyone sends).
  if (String(value) === text) return true;
  return canonical(String(value)) === canonical(text);
}

/**
 * Scans JSON text once, keeping only a counter and a few flags. Malformed text is not judged here: the
 * parser that runs after it says so. A string is skipped with its escapes, so brackets inside it do not count.
 */
export function scanJson(text: string): JsonScan {
  let depth = 0;
  let inexactNumberField: string | null = null;
  // At depth 1 inside the top-level object: the raw text of the last key, and whether a key comes next.
  let topIsObject = false;
  let expectKey = false;
  let topKey: string | null = null;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const start = i;
      i = closingQuote(text, i + 1);
      if (depth === 1 && topIsObject && expectKey) {
        topKey = text.slice(start, i + 1);
        expectKey = false;
      }
      i++;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++;
      if (depth > MAX_JSON_DEPTH) return { tooDeep: true, inexactNumberField: null };
      if (depth === 1) {
        topIsObject = c === OPEN_OBJECT;
        expectKey = topIsObject;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    } else if (c === COMMA) {
      if (depth === 1 && topIsObject) expectKey = true;
    } else if (c === COLON) {
      // Nothing to do: the value follows.
    } else if (isNumberStart(c)) {
      const start = i;
      while (i < length && isNumberChar(text.charCodeAt(i))) i++;
      if (inexactNumberField === null && !numberSurvives(text.slice(start, i))) inexactNumberField = fieldName(topKey);
      continue;
    }
    i++;
  }
  return { tooDeep: false, inexactNumberField };
}

/** Where the string that opened before `from` ends: the next quote not escaped by an odd run of backslashes. */
function closingQuote(text: string, from: number): number {
  let at = from;
  for (;;) {
    at = text.indexOf('"', at);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
    at++;
  }
}

function fieldName(rawKey: string | null): string {
  if (rawKey === null) return "";
  try {
    return JSON.parse(rawKey) as string;
  } catch {
    return rawKey;
  }
}
