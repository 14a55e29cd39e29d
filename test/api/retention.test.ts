import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { sql } from "drizzle-orm";
import { UploadedFile } from "../../src/lib/files.ts";
import { startPurger } from "../../src/workers/purger.ts";
import { operator } from "../../src/services/principal.ts";
import { testApp, type TestApp } from "../helpers/app.ts";
import { apiError } from "./scenario.ts";

// Retention and erasure (docs/api.md, "Retention and erasure"): what goes, what stays, and that counters, field lists, files and
// exports agree afterwards.
let t: TestApp;
afterEach(() => {
  setSystemTime();
  t?.close();
});

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse("2026-11-20T12:00:00.000Z");

/** Stores a submission as if it arrived `daysAgo` before NOW. */
async function at(daysAgo: number, formId: string, data: Record<string, unknown>, isSpam = false): Promise<string> {
  setSystemTime(new Date(NOW - daysAgo * DAY));
  const stored = await t.services.submissions.receive(formId, data, { isSpam });
  setSystemTime();
  return stored.id;
}

const file = (name: string) => new UploadedFile(name, "application/pdf", new TextEncoder().encode(`%PDF ${name}`));

/** The form's kept counters beside a fresh count of its rows: the two must agree after any deletion. */
async function counters(formId: string) {
  const [kept] = await t.services.store.db.all<Record<string, number>>(
    sql`SELECT submission_count AS submissionCount, spam_count AS spamCount, unread_count AS unreadCount, starred_count AS starredCount FROM forms WHERE id = ${formId}`,
  );
  const [counted] = await t.services.store.db.all<Record<string, number>>(sql`SELECT
      coalesce(sum(is_spam = 0), 0) AS submissionCount, coalesce(sum(is_spam = 1), 0) AS spamCount,
      coalesce(sum(is_spam = 0 AND is_read = 0), 0) AS unreadCount, coalesce(sum(is_spam = 0 AND is_starred = 1), 0) AS starredCount
    FROM submissions WHERE form_id = ${formId}`);
  expect(kept).toEqual(counted!);
  return kept!;
}

/** Files whose submission is gone: there must never be any. */
async function orphanFiles(): Promise<number> {
  const [row] = await t.services.store.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM files WHERE submission_id NOT IN (SELECT id FROM submissions)`);
  return row!.n;
}

async function fileCount(): Promise<number> {
  const [row] = await t.services.store.db.all<{ n: number }>(sql`SELECT count(*) AS n FROM files`);
  return row!.n;
}

async function setup() {
  t = await testApp();
  const account = await t.account("acme");
  const key = await account.key();
  const make = async (body: Record<string, unknown>) => {
    const answer = await t.request("POST", "/api/forms", { key, body: { name: "Form", fileUploads: true, ...body } });
    expect(answer.status).toBe(201);
    return (await answer.json()) as { id: string; slug: string; retentionDays: number | null; spamRetentionDays: number | null };
  };
  return { account, key, make };
}

describe("retention settings", () => {
  test("retentionDays is null and spamRetentionDays 30 unless set; 1 to 3650 or null; anything else is 400", async () => {
    const { key, make } = await setup();
    const plain = await make({});
    expect([plain.retentionDays, plain.spamRetentionDays]).toEqual([null, 30]);
    const set = await make({ retentionDays: 90, spamRetentionDays: null });
    expect([set.retentionDays, set.spamRetentionDays]).toEqual([90, null]);
    for (const [field, value] of [
      ["retentionDays", 0],
      ["retentionDays", 3651],
      ["retentionDays", 1.5],
      ["retentionDays", "7"],
      ["spamRetentionDays", -1],
    ] as const) {
      const answer = await t.request("PATCH", `/api/forms/${plain.id}`, { key, body: { [field]: value } });
      expect({ field, value, status: answer.status, body: await answer.json() }).toEqual({ field, value, status: 400, body: apiError("invalid_body", field) });
    }
    const cleared = await t.request("PATCH", `/api/forms/${set.id}`, { key, body: { retentionDays: null, spamRetentionDays: 3650 } });
    expect(await cleared.json()).toMatchObject({ retentionDays: null, spamRetentionDays: 3650 });
  });
});

describe("purge", () => {
  test("deletes what is older than each form's retention, with its files; counters, field lists and exports stay true", async () => {
    const { key, make } = await setup();
    const kept30 = await make({ retentionDays: 30, spamRetentionDays: 7 });
    const forever = await make({ spamRetentionDays: null });
    const oldWithFile = await at(40, kept30.id, { legacy: "only in old ones", cv: file("old.pdf") });
    const oldSpam = await at(10, kept30.id, { email: "bot@example.com" }, true);
    const recent = await at(5, kept30.id, { email: "ann@example.com", cv: file("new.pdf") });
    await t.services.submissions.update(operator((await t.services.accounts.list())[0]!.id, "live"), kept30.id, recent, { isStarred: true });
    await at(3, kept30.id, { email: "spam@example.com" }, true);
    const ancient = await at(3000, forever.id, { email: "old@example.com", cv: file("ancient.pdf") });
    await at(3000, forever.id, { email: "oldspam@example.com" }, true);
    expect(await fileCount()).toBe(3);

    const purged = await t.services.retention.purge(NOW);
    expect(purged).toEqual({ [kept30.id]: 2 });
    const list = (await (await t.request("GET", `/api/forms/${kept30.id}/submissions?filter=all`, { key })).json()) as {
      submissions: { id: string }[];
      fields: string[];
    };
    expect(list.submissions.map((s) => s.id)).toEqual([recent]);
    // "legacy" was only ever in the purged submission: it leaves the field list and the CSV columns.
    expect(list.fields).toEqual(["email", "cv"]);
    const csv = await (await t.request("GET", `/api/forms/${kept30.id}/submissions/export?format=csv&filter=all`, { key })).text();
    expect(csv.split("\n")[0]).toBe("id,createdAt,email,cv");
    expect(await counters(kept30.id)).toEqual({ submissionCount: 1, spamCount: 1, unreadCount: 1, starredCount: 1 });
    expect(await counters(forever.id)).toEqual({ submissionCount: 1, spamCount: 1, unreadCount: 1, starredCount: 0 });
    for (const gone of [oldWithFile, oldSpam]) expect((await t.request("GET", `/api/forms/${kept30.id}/submissions/${gone}`, { key })).status).toBe(404);
    expect((await t.request("GET", `/api/forms/${forever.id}/submissions/${ancient}`, { key })).status).toBe(200);
    expect({ files: await fileCount(), orphans: await orphanFiles() }).toEqual({ files: 2, orphans: 0 });
    // A second purge at the same time finds nothing more.
    expect(await t.services.retention.purge(NOW)).toEqual({});
  });

  test("a purge of more than one batch takes everything due, 500 rows a transaction", async () => {
    const { make } = await setup();
    const form = await make({ retentionDays: 1 });
    setSystemTime(new Date(NOW - 2 * DAY));
    await Promise.all(Array.from({ length: 1234 }, (_, i) => t.services.submissions.receive(form.id, { n: String(i) }, { isSpam: i % 10 === 0 })));
    setSystemTime();
    await at(0, form.id, { fresh: "yes" });
    expect(await t.services.retention.purge(NOW)).toEqual({ [form.id]: 1234 });
    expect(await counters(form.id)).toEqual({ submissionCount: 1, spamCount: 0, unreadCount: 1, starredCount: 0 });
  }, 30_000);

  test("the server's purger runs at start and then on its interval, measured by its own clock", async () => {
    const { make } = await setup();
    const form = await make({ retentionDays: 30 });
    await at(0, form.id, { email: "ann@example.com", cv: file("cv.pdf") });
    let clock = NOW;
    const lines: string[] = [];
    const purger = startPurger(t.services.retention, { intervalMs: 20, now: () => clock, log: { line: (l) => lines.push(l), error: (m) => lines.push(m) } });
    try {
      await purger.last;
      expect((await counters(form.id)).submissionCount).toBe(1);
      clock = NOW + 31 * DAY; // a month later, by the purger's clock
      for (let i = 0; i < 200 && (await counters(form.id)).submissionCount > 0; i++) await Bun.sleep(10);
      await purger.last;
      expect(await counters(form.id)).toEqual({ submissionCount: 0, spamCount: 0, unreadCount: 0, starredCount: 0 });
      expect({ files: await fileCount(), lines }).toEqual({ files: 0, lines: ["purged 1 submission past their forms' retention (1 form)"] });
    } finally {
      await purger.stop();
    }
  });
});

describe("POST /api/submissions/erase", () => {
  test("erases every submission of the account and mode holding the address, in any case and in arrays, with files", async () => {
    const { account, key, make } = await setup();
    const contact = await make({ name: "Contact" });
    const jobs = await make({ name: "Jobs" });
    const a = await at(1, contact.id, { email: " Ann@Example.COM ", message: "hi" });
    const b = await at(1, jobs.id, { cc: ["bob@example.com", "ann@example.com"], cv: file("ann-cv.pdf") });
    const c = await at(1, jobs.id, { contact: { email: "ANN@example.com" } }, true);
    const keep1 = await at(1, contact.id, { email: "ann@example.com.au", note: "not her" });
    const keep2 = await at(1, contact.id, { message: "write to ann@example.com please", only: "here" });
    const testForm = await account.form({ name: "Staging" }, "test");
    await at(1, testForm.id, { email: "ann@example.com" });
    const other = await t.account("globex");
    const otherForm = await other.form({ name: "Theirs" });
    await at(1, otherForm.id, { email: "ann@example.com" });
    await t.services.submissions.update(operator(account.id, "live"), contact.id, a, { isStarred: true });

    const dry = await t.request("POST", "/api/submissions/erase", { key, body: { email: "ann@EXAMPLE.com", dryRun: true } });
    expect({ status: dry.status, body: await dry.json() }).toEqual({
      status: 200,
      body: { erased: 3, forms: { [contact.id]: 1, [jobs.id]: 2 }, dryRun: true },
    });
    expect(await fileCount()).toBe(1);

    const answer = await t.request("POST", "/api/submissions/erase", { key, body: { email: "  ann@example.com" } });
    expect({ status: answer.status, body: await answer.json() }).toEqual({
      status: 200,
      body: { erased: 3, forms: { [contact.id]: 1, [jobs.id]: 2 }, dryRun: false },
    });
    for (const [form, id] of [
      [contact.id, a],
      [jobs.id, b],
      [jobs.id, c],
    ] as const) {
      expect((await t.request("GET", `/api/forms/${form}/submissions/${id}`, { key })).status).toBe(404);
    }
    for (const id of [keep1, keep2]) expect((await t.request("GET", `/api/forms/${contact.id}/submissions/${id}`, { key })).status).toBe(200);
    expect(await counters(contact.id)).toEqual({ submissionCount: 2, spamCount: 0, unreadCount: 2, starredCount: 0 });
    expect(await counters(jobs.id)).toEqual({ submissionCount: 0, spamCount: 0, unreadCount: 0, starredCount: 0 });
    const fields = (await (await t.request("GET", `/api/forms/${jobs.id}/submissions`, { key })).json()) as { fields: string[] };
    expect(fields.fields).toEqual([]);
    const contactFields = (await (await t.request("GET", `/api/forms/${contact.id}/submissions`, { key })).json()) as { fields: string[] };
    expect(contactFields.fields).toEqual(["email", "note", "message", "only"]);
    expect({ files: await fileCount(), orphans: await orphanFiles() }).toEqual({ files: 0, orphans: 0 });
    // The other mode's and the other account's submissions are not this key's to erase.
    expect(await counters(testForm.id)).toMatchObject({ submissionCount: 1 });
    expect(await counters(otherForm.id)).toMatchObject({ submissionCount: 1 });
    const again = await t.request("POST", "/api/submissions/erase", { key, body: { email: "ann@example.com" } });
    expect(await again.json()).toEqual({ erased: 0, forms: {}, dryRun: false });
  });

  test('an address with a quoted local part ("ann"@example.com), which JSON stores escaped, is found and erased', async () => {
    const { key, make } = await setup();
    const contact = await make({ name: "Contact" });
    const quoted = await at(1, contact.id, { email: '"Ann"@example.com', message: "hi" });
    const keep = await at(1, contact.id, { email: "ann@example.com" });
    const answer = await t.request("POST", "/api/submissions/erase", { key, body: { email: '"ann"@example.com' } });
    expect({ status: answer.status, body: await answer.json() }).toEqual({ status: 200, body: { erased: 1, forms: { [contact.id]: 1 }, dryRun: false } });
    expect((await t.request("GET", `/api/forms/${contact.id}/submissions/${quoted}`, { key })).status).toBe(404);
    expect((await t.request("GET", `/api/forms/${contact.id}/submissions/${keep}`, { key })).status).toBe(200);
  });

  test("a missing or malformed address, or an unknown field, is 400 invalid_body", async () => {
    const { key } = await setup();
    for (const [body, field] of [
      [{}, "email"],
      [{ email: "not an address" }, "email"],
      [{ email: 7 }, "email"],
      [{ email: "a@b.c", dryRun: "yes" }, "dryRun"],
      [{ email: "a@b.c", all: true }, "all"],
    ] as const) {
      const answer = await t.request("POST", "/api/submissions/erase", { key, body });
      expect({ body, status: answer.status, answer: await answer.json() }).toEqual({ body, status: 400, answer: apiError("invalid_body", field) });
    }
  });
});
