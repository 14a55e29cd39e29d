import { afterEach, expect, test } from "bun:test";
import { expectJsonError, publicFixture, type PublicFixture, type StoredSubmission } from "./public-support.ts";

let f: PublicFixture;
afterEach(() => f?.close());

const json = { accept: "application/json" };

interface RuleCase {
  name: string;
  rules: Record<string, unknown>;
  hit: Record<string, unknown>;
  miss: Record<string, unknown>;
  reason: StoredSubmission["spamReason"];
}

// Each rule: one post that breaks it (kept as spam, answered as a success) and one that comes close and does not.
const CASES: RuleCase[] = [
  {
    name: "a blocked word, whatever its case, in any value",
    rules: { blockedWords: ["viagra", "free money"] },
    hit: { name: "Ann", message: "Get FREE   Money now!" },
    miss: { name: "Ann", message: "Money is never free; I live in Sussex." },
    reason: "rule:blocked_words",
  },
  {
    name: "a blocked word inside a checkbox group",
    rules: { blockedWords: ["casino"] },
    hit: { topics: ["news", "Casino"] },
    miss: { topics: ["news", "casinos-free"] },
    reason: "rule:blocked_words",
  },
  {
    name: "an entry with punctuation, as the literal text (not folded into the word 'a' or 'c')",
    rules: { blockedWords: ["(a+)+$", "c++"] },
    hit: { message: "I code in C++ all day" },
    miss: { message: "Via Grande is a street in Livorno, see http://a.example/1 or learn c and abc++" },
    reason: "rule:blocked_words",
  },
  {
    name: "a blocked address",
    rules: { blockedEmails: ["bot@example.com"] },
    hit: { email: " Bot@Example.com " },
    miss: { email: "ann@example.com" },
    reason: "rule:blocked_emails",
  },
  {
    name: "a blocked domain, subdomains included",
    rules: { blockedEmails: ["@spam.test"] },
    hit: { email: "x@mail.spam.test" },
    miss: { email: "x@notspam.test" },
    reason: "rule:blocked_emails",
  },
  {
    name: "a disposable address",
    rules: { blockDisposableEmails: true },
    hit: { email: "someone@mailinator.com" },
    miss: { email: "someone@gmail.com" },
    reason: "disposable_email",
  },
  {
    name: "more links than allowed",
    rules: { maxLinks: 2 },
    hit: { message: "see https://a.example and http://b.example and www.c.example" },
    miss: { message: "see https://www.a.example and http://b.example" },
    reason: "rule:max_links",
  },
];

for (const rule of CASES) {
  test(`rule: ${rule.name} makes a post spam; a post that does not break it is kept`, async () => {
    f = await publicFixture();
    const form = await f.form({ spamRules: rule.rules });
    const hit = await f.post(form.slug, { body: rule.hit, headers: json });
    expect(hit.status).toBe(200);
    const miss = await f.post(form.slug, { body: rule.miss, headers: json });
    expect(miss.status).toBe(200);
    const stored = await f.stored(form.id);
    expect(stored.map((s) => ({ data: s.data, isSpam: s.isSpam, spamReason: s.spamReason }))).toEqual([
      { data: rule.hit, isSpam: true, spamReason: rule.reason },
      { data: rule.miss, isSpam: false, spamReason: null },
    ]);
  });
}

test("rule: the same data again within the window is a duplicate; other data, or the same on a form without the rule, is not", async () => {
  f = await publicFixture();
  const form = await f.form({ spamRules: { duplicateWindowHours: 24 } });
  const other = await f.form();
  for (const body of [{ message: "hello" }, { message: "hello" }, { message: "hello again" }]) {
    expect((await f.post(form.slug, { body, headers: json })).status).toBe(200);
    expect((await f.post(other.slug, { body, headers: json })).status).toBe(200);
  }
  expect((await f.stored(form.id)).map((s) => s.spamReason)).toEqual([null, "duplicate", null]);
  expect((await f.stored(other.id)).map((s) => s.spamReason)).toEqual([null, null, null]);
  // The rule compares with what arrived while it was on (docs/api.md): turned on now, the next copy is the first.
  const patched = await f.t.request("PATCH", `/api/forms/${other.id}`, { key: f.key, body: { spamRules: { duplicateWindowHours: 24 } } });
  expect(patched.status).toBe(200);
  for (let i = 0; i < 2; i++) expect((await f.post(other.slug, { body: { message: "hello" }, headers: json })).status).toBe(200);
  expect((await f.stored(other.id)).map((s) => s.spamReason)).toEqual([null, null, null, null, "duplicate"]);
});

test("a browser whose post breaks a rule is sent to the thank-you page, and the owner gets no notification", async () => {
  f = await publicFixture();
  const form = await f.form({ spamRules: { blockedWords: ["crypto"] }, notificationEmail: "owner@example.com" });
  const answer = await f.post(form.slug, { body: new URLSearchParams({ message: "buy crypto" }) });
  expect(answer.status).toBe(303);
  expect(answer.headers.get("location")).toBe("http://formsvc.test/thanks");
  const notifications = await f.t.request("GET", `/api/forms/${form.id}/notifications`, { key: f.key });
  expect(((await notifications.json()) as { notifications: unknown[] }).notifications).toEqual([]);
});

test("rules are shown on the form, changed with PATCH and cleared with null", async () => {
  f = await publicFixture();
  const form = await f.form({ spamRules: { blockedWords: ["Crypto"], blockedEmails: ["@Spam.Test"], maxLinks: 0 } });
  const read = async () => (await (await f.t.request("GET", `/api/forms/${form.id}`, { key: f.key })).json()) as Record<string, unknown>;
  expect((await read()).spamRules).toEqual({ blockedWords: ["Crypto"], blockedEmails: ["@spam.test"], maxLinks: 0 });
  const patched = await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { spamRules: { duplicateWindowHours: 2 } } });
  expect(patched.status).toBe(200);
  expect((await read()).spamRules).toEqual({ duplicateWindowHours: 2 });
  await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { spamRules: null } });
  expect((await read()).spamRules).toBeNull();
});

const BAD_RULES: [string, Record<string, unknown>, string][] = [
  ["a word list too long", { blockedWords: Array.from({ length: 501 }, (_, i) => `w${i}`) }, "spamRules.blockedWords"],
  ["a word too long", { blockedWords: ["x".repeat(101)] }, "spamRules.blockedWords.0"],
  ["a word of punctuation only", { blockedWords: ["!!!"] }, "spamRules.blockedWords.0"],
  ["an address that is none", { blockedEmails: ["not-an-address"] }, "spamRules.blockedEmails.0"],
  ["a negative link count", { maxLinks: -1 }, "spamRules.maxLinks"],
  ["a window past 30 days", { duplicateWindowHours: 721 }, "spamRules.duplicateWindowHours"],
  ["an unknown rule", { blockedRegex: "(a+)+$" }, "blockedRegex"],
];

for (const [name, rules, field] of BAD_RULES) {
  test(`rules: ${name} is refused with 400 invalid_body naming the field`, async () => {
    f = await publicFixture();
    await expectJsonError(await f.t.request("POST", "/api/forms", { key: f.key, body: { name: "x", spamRules: rules } }), 400, "invalid_body", field);
  });
}
