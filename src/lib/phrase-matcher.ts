/**
 * Literal, case-insensitive matching of many words and phrases at once, in time linear in the text whatever the
 * list holds (Aho-Corasick): no pattern language, so nothing a form's owner or a poster writes can make it slow.
 * Text and phrases are first folded alike: lowercase, every run of characters that are not letters or digits
 * becomes one space, and the whole is framed by spaces, so " free money " matches only whole words.
 */

interface Node {
  next: Map<number, Node>;
  fail: Node | null;
  /** A phrase ends here, or at a node this one falls back to. */
  hit: boolean;
}

const node = (): Node => ({ next: new Map(), fail: null, hit: false });

const WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordChar(code: number, char: string): boolean {
  if (code < 128) return (code >= 48 && code <= 57) || (code >= 97 && code <= 122) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(char);
}

/** The folded form of `text`: lowercase words separated by single spaces, with a space at each end. */
export function fold(text: string): string {
  const parts: string[] = [" "];
  let spaced = true;
  for (const char of text.toLowerCase()) {
    if (isWordChar(char.charCodeAt(0), char)) {
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

/** A matcher built once for a list of phrases. */
export interface PhraseMatcher {
  /** Whether any phrase occurs in `text`; `steps` counts the transitions taken (at most twice the folded length). */
  scan(text: string): { hit: boolean; steps: number };
}

/** Builds the automaton of `phrases` (phrases that fold to nothing are left out). */
export function phraseMatcher(phrases: readonly string[]): PhraseMatcher {
  const root = node();
  for (const phrase of phrases) {
    const folded = fold(phrase);
    if (folded.trim() === "") continue;
    let at = root;
    for (let i = 0; i < folded.length; i++) {
      const code = folded.charCodeAt(i);
      let child = at.next.get(code);
      if (!child) {
        child = node();
        at.next.set(code, child);
      }
      at = child;
    }
    at.hit = true;
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
      child.hit ||= child.fail.hit;
      queue.push(child);
    }
  }
  return {
    scan(text) {
      const folded = fold(text);
      let at = root;
      let steps = 0;
      for (let i = 0; i < folded.length; i++) {
        const code = folded.charCodeAt(i);
        steps++;
        while (at !== root && !at.next.has(code)) {
          at = at.fail!;
          steps++;
        }
        at = at.next.get(code) ?? root;
        if (at.hit) return { hit: true, steps };
      }
      return { hit: false, steps };
    },
  };
}
