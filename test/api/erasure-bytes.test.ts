import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import { testApp, type TestApp } from "../helpers/app.ts";

// An erasure (by address) and a retention purge must leave none of the removed values anywhere in the
// database file or its -wal: not in free space, not in an old page, not in a log of the WAL.
let t: TestApp;
afterEach(() => t?.close());

const unique = (what: string) => `${what}${randomBytes(6).toString("hex")}`;

/** A fresh app (kept in `t`) and its owner's API: each call must succeed, and gives its JSON. */
async function ownerApi(): Promise<(method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>> {
  t = await testApp();
  const key = await (await t.account()).key();
  return async (method, path, body) => {
    const answer = await t.request(method, path, { key, body });
    expect(answer.status).toBeLessThan(300);
    return (await answer.json()) as Record<string, unknown>;
  };
}

/** The database file and its -wal, as bytes: what `strings formsvc.db` would read. */
function fileBytes(dir: string): Buffer {
  const file = join(dir, "formsvc.db");
  return Buffer.concat([readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)]);
}

test("after an erasure by address and a retention purge, none of their values is left in the file or the -wal", async () => {
  const api = await ownerApi();
  const form = await api("POST", "/api/forms", { name: "Jobs", fileUploads: true, notificationEmail: "owner@example.com" });
  const kept = await api("POST", "/api/forms", { name: "Short", retentionDays: 1, notificationEmail: "owner@example.com" });
  await api("POST", `/api/forms/${form.id}/webhooks`, { url: "https://hooks.example.com/formsvc" });
  await api("POST", `/api/forms/${kept.id}/webhooks`, { url: "https://hooks.example.com/formsvc" });

  const erased = { address: `${unique("ann")}@example.com`, note: unique("note-"), file: unique("file-bytes-"), fileName: unique("cv-") };
  const onlyReplyTo = { note: unique("replyto-only-"), subject: unique("subject-") };
  const purged = { address: `${unique("bob")}@example.com`, note: unique("purged-") };
  const stays = { note: unique("stays-") };

  const post = async (slug: unknown, body: FormData | Record<string, string>) => {
    const answer = await t.request("POST", `/f/${slug}`, { body, headers: { accept: "application/json" } });
    expect(answer.status).toBe(200);
  };
  const withFile = new FormData();
  withFile.set("email", erased.address.toUpperCase());
  withFile.set("note", erased.note);
  withFile.set("cv", new File([`${erased.file}\n`.repeat(200)], `${erased.fileName}.txt`, { type: "text/plain" }));
  await post(form.slug, withFile);
  // The address only as `_replyto`: the notification row keeps it (reply_to), and the `_subject` beside it.
  await post(form.slug, { _replyto: erased.address, _subject: onlyReplyTo.subject, note: onlyReplyTo.note });
  await post(kept.slug, { email: purged.address, note: purged.note });
  await post(form.slug, { email: "keep@example.com", note: stays.note });

  const answer = await api("POST", "/api/submissions/erase", { email: erased.address });
  expect(answer).toEqual({ erased: 2, forms: { [form.id as string]: 2 }, dryRun: false });
  expect(await t.services.retention.purge(Date.now() + 2 * 86_400_000)).toEqual({ [kept.id as string]: 1 });

  const bytes = fileBytes(t.dir);
  const gone = [erased.address, erased.note, erased.file, erased.fileName, onlyReplyTo.note, onlyReplyTo.subject, purged.address, purged.note];
  expect(gone.filter((value) => bytes.includes(value) || bytes.includes(value.toUpperCase()))).toEqual([]);
  // The search does find what was kept: the check reads the bytes that hold the data.
  expect(bytes.includes(stays.note)).toBe(true);
  expect(existsSync(join(t.dir, "formsvc.db-wal")) ? readFileSync(join(t.dir, "formsvc.db-wal")).length : 0).toBe(0);
});

test("an erasure reaches the confirmation emails sent to the address, and an opt-in window's purge leaves none of its values", async () => {
  const api = await ownerApi();
  const ownerReply = `${unique("desk")}@example.com`;
  const confirmation = { enabled: true, subject: `Thanks from ${ownerReply}`, text: "Hello {{name}} ({{email}}), you wrote: {{note}}\n", replyTo: ownerReply };
  const form = await api("POST", "/api/forms", { name: "Letters", confirmation });
  const optIn = await api("POST", "/api/forms", { name: "List", confirmation: { ...confirmation, doubleOptIn: true, optInDays: 1 } });
  const post = async (slug: unknown, body: Record<string, string>) => {
    const answer = await t.request("POST", `/f/${slug}`, { body, headers: { accept: "application/json" } });
    expect(answer.status).toBe(200);
  };

  const erased = { address: `${unique("ann")}@example.com`, name: unique("Ann-"), note: unique("note-") };
  const unconfirmed = { address: `${unique("cyd")}@example.com`, name: unique("Cyd-"), note: unique("waits-") };
  const stays = { address: `${unique("dee")}@example.com`, note: unique("stays-") };
  await post(form.slug, { email: erased.address, name: erased.name, note: erased.note });
  await post(optIn.slug, { email: unconfirmed.address, name: unconfirmed.name, note: unconfirmed.note });
  await post(form.slug, { email: stays.address, name: "Dee", note: stays.note });
  const log = (await api("GET", `/api/forms/${form.id}/notifications`)).notifications as { kind: string; to: string; status: string }[];
  expect(log.map(({ kind, to, status }) => ({ kind, to, status })).toSorted((a, b) => a.to.localeCompare(b.to))).toEqual([
    { kind: "confirmation", to: erased.address, status: "pending" },
    { kind: "confirmation", to: stays.address, status: "pending" },
  ]);

  // The owner's own reply-to address is in every confirmation, and is nobody's personal data: it erases nothing.
  expect(await api("POST", "/api/submissions/erase", { email: ownerReply, dryRun: true })).toEqual({ erased: 0, forms: {}, dryRun: true });
  expect(await api("POST", "/api/submissions/erase", { email: erased.address })).toEqual({ erased: 1, forms: { [form.id as string]: 1 }, dryRun: false });
  expect(await t.services.retention.purge(Date.now() + 2 * 86_400_000)).toEqual({ [optIn.id as string]: 1 });

  const bytes = fileBytes(t.dir);
  // The address as the confirmation's text would show it too (defanged), and the rendered values.
  const defanged = (address: string) => {
    const at = address.indexOf("@");
    return `${address.slice(0, at)}[@]${address.slice(at + 1).replaceAll(".", "[.]")}`;
  };
  const gone = [erased, unconfirmed].flatMap(({ address, name, note }) => [address, defanged(address), name, note]);
  expect(gone.filter((value) => bytes.includes(value) || bytes.includes(value.toLowerCase()))).toEqual([]);
  expect(bytes.includes(stays.note) && bytes.includes(stays.address)).toBe(true);
});

test("an erasure takes back what the erased submissions taught the spam filter, and finds an address a spam verdict held back", async () => {
  const api = await ownerApi();
  const form = await api("POST", "/api/forms", { name: "Contact", notificationEmail: "owner@example.com", spamRules: { blockedWords: ["casino"] } });
  const post = async (body: Record<string, string>) => {
    const answer = await t.request("POST", `/f/${form.slug}`, { body, headers: { accept: "application/json" } });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { id: string }).id;
  };
  // A word of at most 12 letters: the filter keeps a longer one only as its first letter and length.
  const erased = { address: `${unique("ann")}@example.com`, word: `zq${randomBytes(3).toString("hex")}`, subject: unique("subject-") };
  const marked = await post({ email: erased.address, message: `hello ${erased.word}` });
  const other = await post({ email: "bob@example.com", message: "hello there" });
  // Spam by a rule, its `_replyto` held back for "not spam": the address is in no field of its own.
  await post({ message: "casino tonight", _replyto: erased.address, _subject: erased.subject });
  await api("PATCH", `/api/forms/${form.id}/submissions/${marked}`, { isSpam: true });
  await api("PATCH", `/api/forms/${form.id}/submissions/${other}`, { isSpam: false });
  const tokens = (): Promise<{ token: string; spam: number; ham: number }[]> => t.services.store.db.all(sql`SELECT token, spam, ham FROM spam_tokens`);
  const marks = (): Promise<{ spam: number; ham: number }[]> => t.services.store.db.all(sql`SELECT spam_marks AS spam, ham_marks AS ham FROM accounts`);
  expect((await tokens()).some((row) => row.token.toLowerCase().includes(erased.word))).toBe(true);

  expect(await api("POST", "/api/submissions/erase", { email: erased.address })).toEqual({ erased: 2, forms: { [form.id as string]: 2 }, dryRun: false });
  const left = await tokens();
  expect(left.filter((row) => row.token.toLowerCase().includes(erased.word) || row.token.toLowerCase().includes(erased.address))).toEqual([]);
  // "hello" was taught by both marks: the one taken back leaves the other's count.
  expect(left.filter((row) => row.token.toLowerCase() === "hello")).toEqual([{ token: "hello", spam: 0, ham: 1 }]);
  expect(await marks()).toEqual([{ spam: 0, ham: 1 }]);
  // The filter weighs a token against each kind's token total: what was taken back and scrubbed leaves them too.
  const totals = await t.services.store.db.all(sql`SELECT spam_token_total AS spam, ham_token_total AS ham FROM accounts`);
  expect(totals).toEqual([{ spam: 0, ham: left.reduce((sum, row) => sum + row.ham, 0) }]);
  const bytes = fileBytes(t.dir);
  expect([erased.address, erased.word, erased.subject].filter((value) => bytes.includes(value))).toEqual([]);
});
