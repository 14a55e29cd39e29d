import { memoized } from "../../db/prepared.ts";
import type { SpamRules } from "../../domain/types.ts";
import { phraseMatcher } from "../../lib/phrase-matcher.ts";
import { isEmail, type Zod } from "../../lib/validate.ts";
import { isDisposableDomain } from "./disposable.ts";

/** The reasons a rule gives; `duplicate` is the service's, since it reads earlier submissions. */
export type RuleReason = "rule:blocked_words" | "rule:blocked_emails" | "disposable_email" | "rule:max_links";

/** Bounds that keep a form's rules, and so the work of every post, small. */
export const RULE_LIMITS = { words: 500, wordLength: 100, emails: 500, maxLinks: 1000, duplicateHours: 720 } as const;

/** The body of `spamRules` in a form's create or update. */
export const spamRulesSchema = (z: Zod) =>
  z.strictObject(
    {
      blockedWords: z
        .array(
          z
            .string({ error: "spamRules.blockedWords must be an array of words or phrases." })
            .trim()
            .min(1, "spamRules.blockedWords entries must not be empty.")
            .max(RULE_LIMITS.wordLength, `spamRules.blockedWords entries must be at most ${RULE_LIMITS.wordLength} characters.`)
            .refine((word) => /[\p{L}\p{N}]/u.test(word), "spamRules.blockedWords entries must hold a letter or digit."),
          { error: "spamRules.blockedWords must be an array of words or phrases." },
        )
        .max(RULE_LIMITS.words, `spamRules.blockedWords may hold at most ${RULE_LIMITS.words} entries.`)
        .optional(),
      blockedEmails: z
        .array(
          z
            .string({ error: "spamRules.blockedEmails must be an array of addresses or @domains." })
            .trim()
            .toLowerCase()
            .max(254, "spamRules.blockedEmails entries must be at most 254 characters.")
            .refine(
              (entry) => isEmail(entry) || /^@[a-z0-9.-]+\.[a-z0-9-]+$/.test(entry),
              "spamRules.blockedEmails entries are addresses (ann@example.com) or domains (@example.com).",
            ),
          { error: "spamRules.blockedEmails must be an array of addresses or @domains." },
        )
        .max(RULE_LIMITS.emails, `spamRules.blockedEmails may hold at most ${RULE_LIMITS.emails} entries.`)
        .optional(),
      blockDisposableEmails: z.boolean({ error: "spamRules.blockDisposableEmails must be true or false." }).optional(),
      maxLinks: z
        .number({ error: `spamRules.maxLinks must be a whole number from 0 to ${RULE_LIMITS.maxLinks}.` })
        .int(`spamRules.maxLinks must be a whole number from 0 to ${RULE_LIMITS.maxLinks}.`)
        .min(0, `spamRules.maxLinks must be a whole number from 0 to ${RULE_LIMITS.maxLinks}.`)
        .max(RULE_LIMITS.maxLinks, `spamRules.maxLinks must be a whole number from 0 to ${RULE_LIMITS.maxLinks}.`)
        .optional(),
      duplicateWindowHours: z
        .number({ error: `spamRules.duplicateWindowHours must be a whole number of hours from 1 to ${RULE_LIMITS.duplicateHours}.` })
        .int(`spamRules.duplicateWindowHours must be a whole number of hours from 1 to ${RULE_LIMITS.duplicateHours}.`)
        .min(1, `spamRules.duplicateWindowHours must be a whole number of hours from 1 to ${RULE_LIMITS.duplicateHours}.`)
        .max(RULE_LIMITS.duplicateHours, `spamRules.duplicateWindowHours must be a whole number of hours from 1 to ${RULE_LIMITS.duplicateHours}.`)
        .optional(),
    },
    { error: "spamRules must be an object such as {blockedWords: [...], maxLinks: 3}, or null." },
  );

/** The stored JSON of a form's rules, or null when it has none worth storing. */
export function rulesColumn(rules: SpamRules | null | undefined): string | null {
  if (!rules) return null;
  const kept = Object.fromEntries(Object.entries(rules).filter(([, value]) => value !== undefined && !(Array.isArray(value) && value.length === 0)));
  return Object.keys(kept).length === 0 ? null : JSON.stringify(kept);
}

interface CompiledRules {
  rules: SpamRules;
  words: ReturnType<typeof phraseMatcher> | null;
  addresses: Set<string>;
  domains: string[];
}

/** A form's rules, parsed and their matcher built once per distinct text. */
export const compiledRules = memoized((text: string): CompiledRules => {
  const rules = JSON.parse(text) as SpamRules;
  const blocked = rules.blockedEmails ?? [];
  return {
    rules,
    words: rules.blockedWords?.length ? phraseMatcher(rules.blockedWords) : null,
    addresses: new Set(blocked.filter((entry) => !entry.startsWith("@"))),
    domains: blocked.filter((entry) => entry.startsWith("@")).map((entry) => entry.slice(1)),
  };
}, 256);

/** Every string or number in the data, arrays and objects (file descriptions) included, at most `limit` of them. */
export function valuesOf(data: Record<string, unknown>, limit = 10_000): string[] {
  const out: string[] = [];
  const walk = (value: unknown, depth: number) => {
    // A file's bytes are no text to judge (its name and type are).
    if (out.length >= limit || depth > 8 || ArrayBuffer.isView(value)) return;
    if (typeof value === "string") out.push(value);
    else if (typeof value === "number" || typeof value === "boolean") out.push(String(value));
    else if (Array.isArray(value)) for (const item of value) walk(item, depth + 1);
    else if (value && typeof value === "object") for (const item of Object.values(value)) walk(item, depth + 1);
  };
  for (const value of Object.values(data)) walk(value, 0);
  return out;
}

/** The addresses among the data's values (a value that is one address, trimmed and lowercased). */
function addressesIn(values: string[]): string[] {
  return values
    .filter((value) => value.length <= 254 && value.includes("@"))
    .map((value) => value.trim().toLowerCase())
    .filter(isEmail);
}

/** Whether `domain` is `blocked` or a subdomain of it. */
const underDomain = (domain: string, blocked: string) => domain === blocked || domain.endsWith(`.${blocked}`);

/** How many links the text holds: each http://, https:// and a www. that no scheme stands before. */
export function countLinks(text: string): number {
  const lower = text.toLowerCase();
  let count = 0;
  for (let at = lower.indexOf("http", 0); at !== -1; at = lower.indexOf("http", at + 4)) {
    if (lower.startsWith("://", at + 4) || lower.startsWith("s://", at + 4)) count++;
  }
  for (let at = lower.indexOf("www.", 0); at !== -1; at = lower.indexOf("www.", at + 4)) {
    if (!(at >= 2 && lower.startsWith("//", at - 2))) count++;
  }
  return count;
}

/** The first rule of the form's (stored JSON) rules that the data breaks, or null; duplicates are checked elsewhere. */
export async function checkRules(rulesText: string, data: Record<string, unknown>): Promise<RuleReason | null> {
  const { rules, words, addresses, domains } = compiledRules(rulesText);
  const values = valuesOf(data);
  if (words) {
    for (const value of values) if (words.scan(value).hit) return "rule:blocked_words";
  }
  const needAddresses = addresses.size > 0 || domains.length > 0 || rules.blockDisposableEmails;
  const found = needAddresses ? addressesIn(values) : [];
  for (const address of found) {
    const domain = address.slice(address.lastIndexOf("@") + 1);
    if (addresses.has(address) || domains.some((blocked) => underDomain(domain, blocked))) return "rule:blocked_emails";
  }
  if (rules.blockDisposableEmails) {
    for (const address of found) {
      if (await isDisposableDomain(address.slice(address.lastIndexOf("@") + 1))) return "disposable_email";
    }
  }
  if (rules.maxLinks !== undefined) {
    let links = 0;
    for (const value of values) {
      links += countLinks(value);
      if (links > rules.maxLinks) return "rule:max_links";
    }
  }
  return null;
}
