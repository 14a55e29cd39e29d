/**
 * Literal, case-insensitive matching of many words and phrases at once, in time linear in the text whatever the
 * list holds (Aho-Corasick): no pattern language, so nothing a form's owner or a poster writes can make it slow.
 *
 * An entry made of letters, digits and spaces is a phrase of whole words: text and entry are folded alike
 * (lowercase, every run of characters that are not letters or digits becomes one space, framed by spaces), so
 * "free money" matches "FREE, money!" and "sex" does not match "Sussex". An entry that holds anything else
 * (`c++`, `(a+)+$`, `support@evil.example`) is literal text: it matches those characters, in any case and with
 * any run of spaces for a space, where a letter or digit at either end of it does not continue into the text.
 * Folding such an entry would turn it into other words (`c++` into the word "c"), which is not what was written.
 */

interface Node {
  next: Map<number, Node>;
  fail: Node | null;
  /** The lengths of the entries that end here, or at a node this one falls back to. */
  ends: number[];
}

const node = (): Node => ({ next: new Map(), fail: null, ends: [] });

const WORD_CHAR = /[\p{L}\p{N}]/u;
const SPACE = /\s/u;

function isWordChar(char: string): boolean {
  const code = char.charCodeAt(0);
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(char);
}

/** The character (code point) that starts at `index`. */
const charAt = (text: string, index: number) => String.fromCodePoint(text.codePointAt(index)!);

/** The character (code point) that ends just before `index`. */
function charBefore(text: string, index: number): string {
  const low = text.charCodeAt(index - 1);
  const pair = low >= 0xdc00 && low <= 0xdfff && index >= 2;
  return pair ? text.slice(index - 2, index) : text[index - 1]!;
}

/** Whether an entry is whole words (letters, digits and spaces only) rather than literal text. */
export function isWordEntry(entry: string): boolean {
  for (const char of entry) if (!isWordChar(char) && !SPACE.test(char)) return false;
  return true;
}

/** The folded form of `text`: lowercase words separated by single spaces, with a space at each end. */
export function fold(text: string): string {
  const parts: string[] = [" "];
  let spaced = true;
  for (const char of text.toLowerCase()) {
    if (isWordChar(char)) {
      parts.push(char);
      spaced = false;
    } else if (!spaced) {
      parts.push(" ");
      spaced = true;
    }
  }
  if (!spaced) parts.push(" ");
  return parts.join("");
}

/** The text as literal entries are matched in it: lowercase, each run of spaces one space. */
export function squeeze(text: string): string {
  return text.toLowerCase().replace(/\s+/gu, " ");
}

/** The Aho-Corasick automaton of `entries` (already in the form the scanned text will have). */
function automaton(entries: readonly string[]): Node {
  const root = node();
  for (const entry of entries) {
    let at = root;
    for (let i = 0; i < entry.length; i++) {
      const code = entry.charCodeAt(i);
      let child = at.next.get(code);
      if (!child) {
        child = node();
        at.next.set(code, child);
      }
      at = child;
    }
    if (!at.ends.includes(entry.length)) at.ends.push(entry.length);
  }
  // Breadth first, so that each node's fallback is settled before its children need it.
  const queue: Node[] = [];
  for (const child of root.next.values()) {
    child.fail = root;
    queue.push(child);
  }
  for (let i = 0; i < queue.length; i++) {
    const current = queue[i]!;
    for (const [code, child] of current.next) {
      let fallback = current.fail;
      while (fallback && !fallback.next.has(code)) fallback = fallback.fail;
      child.fail = fallback ? fallback.next.get(code)! : root;
      for (const length of child.fail.ends) if (!child.ends.includes(length)) child.ends.push(length);
      queue.push(child);
    }
  }
  return root;
}

/** Runs `root` over `text`; `accept(start, end)` says whether an entry found at text[start, end) counts. */
function run(root: Node, text: string, accept: (start: number, end: number) => boolean): { hit: boolean; steps: number } {
  let at = root;
  let steps = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    steps++;
    while (at !== root && !at.next.has(code)) {
      at = at.fail!;
      steps++;
    }
    at = at.next.get(code) ?? root;
    for (const length of at.ends) if (accept(i + 1 - length, i + 1)) return { hit: true, steps };
  }
  return { hit: false, steps };
}

/** A matcher built once for a list of entries. */
export interface PhraseMatcher {
  /** Whether any entry occurs in `text`; `steps` counts the transitions taken (at most twice the text's length, per kind of entry). */
  scan(text: string): { hit: boolean; steps: number };
}

/** Builds the automata of `entries` (entries with no letter or digit are left out). */
export function phraseMatcher(entries: readonly string[]): PhraseMatcher {
  const kept = entries.filter((entry) => /[\p{L}\p{N}]/u.test(entry));
  const words = kept.filter(isWordEntry).map(fold);
  const literals = kept.filter((entry) => !isWordEntry(entry)).map((entry) => squeeze(entry.trim()));
  const wordRoot = words.length > 0 ? automaton(words) : null;
  const literalRoot = literals.length > 0 ? automaton(literals) : null;
  return {
    scan(text) {
      let steps = 0;
      if (wordRoot) {
        // Folded entries carry their own framing spaces, so any hit is on whole words.
        const found = run(wordRoot, fold(text), () => true);
        if (found.hit) return found;
        steps += found.steps;
      }
      if (literalRoot) {
        const squeezed = squeeze(text);
        // A letter or digit at an end of the entry must not run on into the text ("c++" is not in "abc++").
        const bounded = (start: number, end: number) =>
          !(isWordChar(charAt(squeezed, start)) && start > 0 && isWordChar(charBefore(squeezed, start))) &&
          !(isWordChar(charBefore(squeezed, end)) && end < squeezed.length && isWordChar(charAt(squeezed, end)));
        const found = run(literalRoot, squeezed, bounded);
        return { hit: found.hit, steps: steps + found.steps };
      }
      return { hit: false, steps };
    },
  };
}
