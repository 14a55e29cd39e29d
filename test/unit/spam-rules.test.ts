import { expect, test } from "bun:test";
import { fold, phraseMatcher, squeeze } from "../../src/lib/phrase-matcher.ts";
import { countLinks } from "../../src/services/spam/rules.ts";

test("phrases match whole words, ignoring case and the punctuation and spaces between them", () => {
  const matcher = phraseMatcher(["free money", "viagra", "Zürich bank"]);
  expect(["FREE, money!", "buy VIAGRA.", "zürich   BANK", "a\nfree\tmoney"].map((text) => matcher.scan(text).hit)).toEqual([true, true, true, true]);
  expect(["freemoney", "viagras", "money free", "zürichbank"].map((text) => matcher.scan(text).hit)).toEqual([false, false, false, false]);
});

test("an entry with punctuation matches its literal text, in any case, not the words it would fold into", () => {
  const matcher = phraseMatcher(["(a+)+$", "c++", "support[@]evil", "don't"]);
  const scan = (text: string) => matcher.scan(text).hit;
  expect(["the regex (A+)+$ here", "C++ jobs", "I like c++", "mail support[@]EVIL.example", "don't  stop"].map(scan)).toEqual([true, true, true, true, true]);
  expect(["Via Grande is a street in Livorno", "http://a.example/1", "the c language", "abc++ x", "dont stop", "support@evil"].map(scan)).toEqual([
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});

test("the work of a scan is linear in the text, whatever the phrases: no input can make it slow", () => {
  // The phrases and the text that make a naive or backtracking matcher quadratic: every prefix nearly matches.
  const phrases = Array.from({ length: 500 }, (_, i) => `${"a ".repeat(i % 50)}a b${i}`);
  const matcher = phraseMatcher(phrases);
  const text = "a ".repeat(200_000);
  const { hit, steps } = matcher.scan(text);
  expect(hit).toBe(false);
  // Each character of the folded text is one step in, and at most one step back for each step in.
  expect(steps).toBeLessThanOrEqual(2 * fold(text).length);
  const literal = phraseMatcher(phrases.map((phrase) => `${phrase}!`)).scan(text);
  expect(literal.steps).toBeLessThanOrEqual(2 * squeeze(text).length);
});

test("links are counted by their scheme, or by www. when no scheme stands before it", () => {
  expect(countLinks("https://a.example http://b.example www.c.example https://www.d.example HTTP://E.example")).toBe(5);
  expect(countLinks("no link here, just http and www")).toBe(0);
});
