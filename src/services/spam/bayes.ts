/**
 * The learning filter's arithmetic, pure: the tokens of a submission, and a score from their counts in the
 * owner's marked submissions (Robinson's per-token probability, combined with Fisher's chi-square as SpamBayes
 * does). No database here: the service reads the counts and writes the marks.
 */

/** Most distinct tokens taken from one submission, and most characters read: the work per post is bounded. */
export const MAX_TOKENS = 400;
const MAX_CHARS = 50_000;
/** How many tokens, the most telling ones, decide a score. */
const MAX_DISCRIMINATORS = 150;
/**
 * Robinson's strength of the prior and the prior itself: an unseen token means nothing either way. Weak (0.1),
 * so that a token seen in a single mark already counts: with the few hundred marks of one account, most telling
 * tokens are that rare (measured on the SpamAssassin corpus: docs/performance.md, "Spam filter").
 */
const PRIOR_STRENGTH = 0.1;
const PRIOR = 0.5;
/** A token seen in not-spam counts this many times over (Graham's bias): marking good mail spam costs more than missing spam. */
const HAM_WEIGHT = 1.15;
/** Tokens closer than this to 0.5 are left out: they tell little, and many of them drown the few that tell. */
const MIN_DISTANCE = 0.2;

/** Counts of one token: in how many spam and how many not-spam marks it occurred. */
export interface TokenCounts {
  spam: number;
  ham: number;
}

/**
 * An account's tokens in all its marks of each kind: the sum of every token's count (a mark of 250 distinct tokens
 * adds 250). A token's share of these, not of the number of marks, says how often it occurs in each kind.
 */
export interface TokenTotals {
  spam: number;
  ham: number;
}

const WORD_CHAR = /^[\p{L}\p{N}]$/u;
const keptAtStart = (char: string) => WORD_CHAR.test(char) || char === "$" || char === "€" || char === "£";
const keptAtEnd = (char: string) => keptAtStart(char) || char === "%" || char === "!";

/** The word without the punctuation around it, in one pass from each end (no regular expression to backtrack). */
function trimEdges(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && !keptAtStart(word[start]!)) start++;
  while (end > start && !keptAtEnd(word[end - 1]!)) end--;
  return word.slice(start, end);
}

/** Longest word read as it is; a longer one counts by its shape alone. */
const MAX_WORD = 200;
/** Longest plain word taken as a token; a longer run (encoded text, hashes, glued words) counts by its shape. */
const MAX_PLAIN = 12;

/** Most words taken from one link's path and query. */
const MAX_PATH_WORDS = 6;
const PATH_BREAK = /[/?#=&.\-_+%:;,]+/;

/**
 * The words of a link's path and query ("path:unsubscribe", "path:remove", "path:cgi"), at most MAX_PATH_WORDS of
 * 3 to 20 characters and not all digits: where a link leads tells a newsletter's from a spammer's (measured:
 * docs/performance.md, "On splits it was not tuned on").
 */
function pathTokens(path: string, out: Set<string>): void {
  let taken = 0;
  for (const word of path.split(PATH_BREAK)) {
    if (taken >= MAX_PATH_WORDS) break;
    // A word with an "@" is left out: an address in a link is a person's, and an erasure finds it only whole.
    if (word.length < 3 || word.length > 20 || word.includes("@") || /^\d+$/.test(word)) continue;
    out.add(`path:${word}`);
    taken++;
  }
}

/** The sender's address and each of its domains but the last label ("from:a@mail.example.com", "from:example.com"). */
function senderTokens(address: string, domain: string, out: Set<string>): void {
  out.add(`from:${address}`);
  const labels = domain.split(".");
  for (let i = 0; i < labels.length - 1 && i < 4; i++) out.add(`from:${labels.slice(i).join(".")}`);
}

/**
 * The tokens of one word. Case is kept for plain words ("FREE" in capitals is another clue than "free"); URL hosts,
 * addresses and domains are folded.
 */
function wordTokens(word: string, out: Set<string>): void {
  const lower = word.toLowerCase();
  if (lower.length > MAX_WORD) {
    out.add(`skip:${lower[0]}${Math.min(Math.floor(lower.length / 100) * 100, 1000)}`);
    return;
  }
  if (lower.includes("://") || lower.startsWith("www.")) {
    const rest = lower.replace(/^[a-z]+:\/\//, "");
    const host = rest.split(/[/?#:]/, 1)[0]!;
    out.add(`url:${lower.startsWith("https") ? "https" : "http"}`);
    for (const part of host.split(".").slice(-3)) if (part) out.add(`host:${part}`);
    pathTokens(rest.slice(host.length), out);
    return;
  }
  const at = lower.indexOf("@");
  if (at > 0 && lower.indexOf(".", at) > at) {
    const domain = trimEdges(lower.slice(at + 1));
    senderTokens(trimEdges(lower), domain, out);
    out.add(`email:${domain}`);
    for (const part of domain.split(".").slice(-2)) if (part) out.add(`emailpart:${part}`);
    return;
  }
  const bare = trimEdges(word);
  if (bare.length < 3) return;
  if (bare.length > MAX_PLAIN) {
    // Long runs (encoded text, hashes) say little one by one; their shape says something.
    out.add(`skip:${bare[0]!.toLowerCase()}${Math.floor(bare.length / 10) * 10}`);
    return;
  }
  out.add(bare);
  // A word with its punctuation stripped off, and the plain word, both count ("free!!!" and "free").
  const letters = bare.replace(/[^\p{L}\p{N}]+/gu, "");
  if (letters.length >= 3 && letters !== bare) out.add(letters);
}

/**
 * Text with its HTML tags replaced by spaces (markup says how a message was made, not what it says), but a link's
 * address kept: where it leads is read as a link written out in the text is.
 */
function withoutMarkup(text: string): string {
  if (!text.includes("<")) return text;
  return text.replace(/<[^<>]{0,300}>/g, (tag) => {
    const link = /\bhref\s*=\s*["']?(https?:\/\/[^"'\s>]{1,200})/i.exec(tag);
    return link ? ` ${link[1]} ` : " ";
  });
}

/** The words of a field named like a subject count once more, marked: "subject:FREE" differs from "FREE" in the text. */
function subjectTokens(data: Record<string, unknown>, out: Set<string>): void {
  for (const [name, value] of Object.entries(data)) {
    if (typeof value !== "string" || !name.toLowerCase().includes("subject")) continue;
    const words = new Set<string>();
    for (const word of value.slice(0, 300).split(/\s+/)) if (word !== "") wordTokens(word, words);
    for (const token of words) out.add(`subject:${token}`);
  }
}

/** The distinct tokens of a submission's values (at most MAX_TOKENS), with a token per field name. */
export function tokenize(data: Record<string, unknown>, values: string[]): string[] {
  const out = new Set<string>();
  for (const name of Object.keys(data)) out.add(`field:${name.toLowerCase().slice(0, 40)}`);
  subjectTokens(data, out);
  let read = 0;
  for (const value of values) {
    if (read >= MAX_CHARS || out.size >= MAX_TOKENS) break;
    const text = value.length + read > MAX_CHARS ? value.slice(0, MAX_CHARS - read) : value;
    read += text.length;
    for (const word of withoutMarkup(text).split(/\s+/)) {
      if (word !== "") wordTokens(word, out);
      if (out.size >= MAX_TOKENS) break;
    }
  }
  return [...out].slice(0, MAX_TOKENS);
}

/**
 * The probability that a submission holding the token is spam, leaning to 0.5 while the token is rare. Each
 * kind's count is taken against that kind's token total, not its number of marks: a long mark holds more tokens,
 * so when an account's spam marks run longer than its not-spam marks, counting per mark leans every token
 * towards spam and moves the whole scale of scores with the account (docs/performance.md, "Spam filter").
 */
export function tokenProbability(counts: TokenCounts, totals: TokenTotals): number {
  const spamRatio = counts.spam / Math.max(totals.spam, 1);
  const hamRatio = (HAM_WEIGHT * counts.ham) / Math.max(totals.ham, 1);
  const raw = spamRatio + hamRatio === 0 ? PRIOR : spamRatio / (spamRatio + hamRatio);
  const seen = counts.spam + counts.ham;
  return (PRIOR_STRENGTH * PRIOR + seen * raw) / (PRIOR_STRENGTH + seen);
}

/** P(chi-square with `freedom` (even) degrees of freedom ≥ x2). */
function chi2Q(x2: number, freedom: number): number {
  const m = x2 / 2;
  let term = Math.exp(-m);
  let sum = term;
  for (let i = 1; i < freedom / 2; i++) {
    term *= m / i;
    sum += term;
  }
  return Math.min(sum, 1);
}

/** A score from 0 (surely not spam) to 1 (surely spam), and the tokens that pulled it most towards spam. */
export interface Score {
  score: number;
  tokens: string[];
}

/** Scores a submission from the counts of its tokens (unseen ones absent) and the account's token totals. */
export function score(counts: Map<string, TokenCounts>, totals: TokenTotals): Score {
  const clues: { token: string; p: number }[] = [];
  for (const [token, seen] of counts) {
    const p = tokenProbability(seen, totals);
    if (Math.abs(p - PRIOR) >= MIN_DISTANCE) clues.push({ token, p });
  }
  clues.sort((a, b) => Math.abs(b.p - PRIOR) - Math.abs(a.p - PRIOR) || (a.token < b.token ? -1 : 1));
  const used = clues.slice(0, MAX_DISCRIMINATORS);
  if (used.length === 0) return { score: PRIOR, tokens: [] };
  let logHam = 0;
  let logSpam = 0;
  for (const { p } of used) {
    logHam += Math.log(Math.max(p, 1e-200));
    logSpam += Math.log(Math.max(1 - p, 1e-200));
  }
  const spamness = 1 - chi2Q(-2 * logSpam, 2 * used.length);
  const hamness = 1 - chi2Q(-2 * logHam, 2 * used.length);
  const tokens = used
    .filter((clue) => clue.p > PRIOR)
    .sort((a, b) => b.p - a.p || (a.token < b.token ? -1 : 1))
    .slice(0, 5)
    .map((clue) => clue.token);
  return { score: (spamness - hamness + 1) / 2, tokens };
}
