// The learning filter's arithmetic alone, without HTTP: the same tokenizer and score as the server, on the
// SpamAssassin public corpus, over several seeded splits. Each split marks 200 spam and 200 ham (as bench/spam.ts
// does through the API) and scores every other message; it prints, per threshold, the share of spam caught and
// of ham marked spam (and how much of that ham is the corpus's "hard ham", commercial newsletters), and the
// share of spam caught at the score that marks 1% of ham (how well the score separates, whatever the threshold).
// Quick (a few seconds a split): for choosing the filter's constants on more than one split.
// BENCH_SEEDS (default "1,2,3,4,5,6,7,8": the eight splits of docs/performance.md) picks the splits, BENCH_THRESHOLDS the thresholds shown.
import { corpusMessages, isHard, pct, split } from "./lib/spam-corpus.ts";

const TRAIN = 200;
const SEEDS = (process.env.BENCH_SEEDS ?? "1,2,3,4,5,6,7,8").split(",").map(Number);
const THRESHOLDS = (process.env.BENCH_THRESHOLDS ?? "0.5,0.8,0.9,0.95").split(",").map(Number);

const all = corpusMessages();

const totals = new Map<number, { caught: number; spam: number; hamMarked: number; hardMarked: number; ham: number }>();
for (const seed of SEEDS) {
  const { restSpam, restHam, scoreOf } = split(all, seed, TRAIN);
  const spamScores = restSpam.map(scoreOf);
  const hamScores = restHam.map((m) => ({ hard: isHard(m), score: scoreOf(m) }));
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
