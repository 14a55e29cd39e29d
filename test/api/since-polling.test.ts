import { afterEach, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;
afterEach(() => t.close());

interface Page {
  submissions: { id: string; createdAt: string }[];
  pagination: { total: number };
}

// A script that polls with since=<the newest createdAt it has seen> must never miss a submission stored
// later, even one stored within the same millisecond: a form's createdAt values are unique and rising.
test("a burst of submissions gets unique, rising createdAt values, so polling by since misses none", async () => {
  t = await testApp();
  const account = await t.account();
  const key = await account.key();
  const form = await account.form({ slug: "contact" });

  const answers = await Promise.all(
    Array.from({ length: 150 }, (_, i) => t.request("POST", "/f/contact", { body: { n: i }, headers: { accept: "application/json" } })),
  );
  expect(answers.every((a) => a.status === 200)).toBe(true);

  const all: Page["submissions"] = [];
  for (let offset = 0; offset < 150; offset += 100) {
    const page = (await (await t.request("GET", `/api/forms/${form.id}/submissions?order=asc&limit=100&offset=${offset}`, { key })).json()) as Page;
    all.push(...page.submissions);
  }
  const times = all.map((s) => s.createdAt);
  expect(new Set(times).size).toBe(150);
  expect([...times].sort()).toEqual(times);

  // Poll from every point of the stream: exactly the ones stored after it come back.
  for (const cut of [0, 1, 74, 148]) {
    const since = encodeURIComponent(all[cut]!.createdAt);
    const later = (await (await t.request("GET", `/api/forms/${form.id}/submissions?order=asc&limit=100&since=${since}`, { key })).json()) as Page;
    expect(later.pagination.total).toBe(149 - cut);
    expect(later.submissions.map((s) => s.id)).toEqual(all.slice(cut + 1, cut + 101).map((s) => s.id));
  }
});
