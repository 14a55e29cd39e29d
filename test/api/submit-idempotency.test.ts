import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { BASE } from "../helpers/app.ts";
import { IdempotencyKeyTaken } from "../../src/services/submissions/write.ts";
import { startPurger } from "../../src/workers/purger.ts";
import { publicFixture, type PublicFixture } from "./public-support.ts";

// Idempotency-Key on the public post (docs/api.md, "Retries: Idempotency-Key"): a client that retries sends the same key, and a repeat
// within 24 hours gets the first answer again while nothing new is stored.

let f: PublicFixture;
beforeAll(async () => {
  f = await publicFixture();
});
afterAll(() => f.close());

const json = { accept: "application/json" };
const keyed = (key: string, headers: Record<string, string> = json) => ({ ...headers, "idempotency-key": key });

/** The answer as a client sees it: status, the replay header, and the body. */
async function seen(answer: Response) {
  const type = answer.headers.get("content-type") ?? "";
  return {
    status: answer.status,
    replayed: answer.headers.get("idempotent-replayed"),
    location: answer.headers.get("location"),
    body: type.includes("json") ? await answer.json() : await answer.text(),
  };
}

/** How many Idempotency-Key records the database holds for a form. */
async function records(formId: string): Promise<number> {
  const rows: { n: number }[] = await f.t.services.store.db.all(sql`SELECT count(*) AS n FROM idempotency_keys WHERE form_id = ${formId}`);
  return rows[0]!.n;
}

test("a repeat with the same key and body gets the first answer again and stores nothing", async () => {
  const form = await f.form();
  const body = { email: "ann@example.com", message: "Hello" };
  const first = await seen(await f.post(form.slug, { body, headers: keyed("retry-1") }));
  const again = await seen(await f.post(form.slug, { body, headers: keyed("retry-1") }));
  const stored = await f.stored(form.id);
  expect(first).toEqual({
    status: 200,
    replayed: null,
    location: null,
    body: { success: true, message: "Thank you! Your submission has been received.", id: stored[0]!.id, next: `${BASE}/thanks` },
  });
  expect(again).toEqual({ ...first, replayed: "true" });
  expect(stored.map((s) => s.data)).toEqual([body]);
});

test("a browser's repeat is sent where the first went; a repeat with a new multipart boundary is still the same post", async () => {
  const form = await f.form();
  const browser = { "content-type": "application/x-www-form-urlencoded" };
  const posts = [];
  for (let i = 0; i < 2; i++) {
    posts.push(await seen(await f.post(form.slug, { body: "name=Ann&_next=https%3A%2F%2Fsite.example%2Fdone", headers: keyed("browser-1", browser) })));
  }
  expect(posts.map((p) => [p.status, p.location])).toEqual([
    [303, "https://site.example/done"],
    [303, "https://site.example/done"],
  ]);
  const multipart = () => {
    const data = new FormData();
    data.set("name", "Bob");
    return data;
  };
  const parts = [];
  for (let i = 0; i < 2; i++) parts.push(await seen(await f.post(form.slug, { body: multipart(), headers: keyed("multipart-1") })));
  expect(parts[1]).toEqual({ ...parts[0]!, replayed: "true" });
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ name: "Ann" }, { name: "Bob" }]);
});

test("the same JSON fields in another order, nested ones included, are the same body: the first answer again, not 409", async () => {
  const form = await f.form();
  const first = await seen(
    await f.post(form.slug, {
      body: '{"email":"ann@example.com","message":"Hi","meta":{"a":1,"b":[1,2]}}',
      headers: keyed("order-1", { ...json, "content-type": "application/json" }),
    }),
  );
  const again = await seen(
    await f.post(form.slug, {
      body: '{"meta":{"b":[1,2],"a":1},"message":"Hi","email":"ann@example.com"}',
      headers: keyed("order-1", { ...json, "content-type": "application/json" }),
    }),
  );
  expect(again).toEqual({ ...first, replayed: "true" });
  // A list's order is part of the data: that is another body.
  const reordered = await f.post(form.slug, {
    body: '{"email":"ann@example.com","message":"Hi","meta":{"a":1,"b":[2,1]}}',
    headers: keyed("order-1", { ...json, "content-type": "application/json" }),
  });
  expect(reordered.status).toBe(409);
  expect((await f.stored(form.id)).length).toBe(1);
});

test("the same key with a different body is 409 idempotency_key_reused; the key is per form", async () => {
  const form = await f.form();
  const other = await f.form();
  await f.post(form.slug, { body: { email: "ann@example.com" }, headers: keyed("k-2") });
  const reused = await seen(await f.post(form.slug, { body: { email: "bob@example.com" }, headers: keyed("k-2") }));
  const message = "This Idempotency-Key was already used for a different submission; send a new key with new data.";
  const item = { code: "idempotency_key_reused", message, field: "Idempotency-Key" };
  expect(reused).toEqual({ status: 409, replayed: null, location: null, body: { error: item, errors: [item] } });
  const elsewhere = await f.post(other.slug, { body: { email: "bob@example.com" }, headers: keyed("k-2") });
  expect(elsewhere.status).toBe(200);
  expect([(await f.stored(form.id)).length, (await f.stored(other.id)).length]).toEqual([1, 1]);
});

test("a key that is not 1 to 200 printable ASCII characters is 400 invalid_parameter, and nothing is stored", async () => {
  const form = await f.form();
  const message = "Idempotency-Key must be 1 to 200 printable ASCII characters, such as a UUID.";
  const item = { code: "invalid_parameter", message, field: "Idempotency-Key" };
  for (const bad of ["", " ", "x".repeat(201), "clé"]) {
    const answer = await f.post(form.slug, { body: { email: "ann@example.com" }, headers: { accept: "application/json", "idempotency-key": bad } });
    expect({ bad, status: answer.status, body: await answer.json() }).toEqual({ bad, status: 400, body: { error: item, errors: [item] } });
  }
  const longest = await f.post(form.slug, { body: { email: "ann@example.com" }, headers: keyed("~".repeat(200)) });
  expect(longest.status).toBe(200);
  expect((await f.stored(form.id)).length).toBe(1);
});

test("repeats sent while the first is still being written wait for it: one submission, one answer for all", async () => {
  const form = await f.form();
  const answers = await Promise.all(
    Array.from({ length: 8 }, () => f.post(form.slug, { body: { email: "ann@example.com" }, headers: keyed("burst") }).then(seen)),
  );
  const stored = await f.stored(form.id);
  expect(stored.length).toBe(1);
  const first = { success: true, message: "Thank you! Your submission has been received.", id: stored[0]!.id, next: `${BASE}/thanks` };
  expect(answers.map((a) => [a.status, a.body])).toEqual(answers.map(() => [200, first]));
  expect(answers.filter((a) => a.replayed === "true").length).toBe(7);
});

test("a post that failed stored no key: the corrected repeat with the same key is stored", async () => {
  const form = await f.form({ fields: [{ name: "email", type: "email", required: true }] });
  const refused = await f.post(form.slug, { body: { email: "not an address" }, headers: keyed("fix-me") });
  expect(refused.status).toBe(400);
  const fixed = await f.post(form.slug, { body: { email: "ann@example.com" }, headers: keyed("fix-me") });
  expect(fixed.status).toBe(200);
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ email: "ann@example.com" }]);
});

test("a key is kept 24 hours: an expired record is replaced by a new post, and the purger deletes expired ones", async () => {
  const form = await f.form();
  await f.post(form.slug, { body: { n: "1" }, headers: keyed("day-old") });
  await f.t.services.store.write((tx) => tx.run(sql`UPDATE idempotency_keys SET created_at = created_at - ${25 * 3_600_000} WHERE form_id = ${form.id}`));
  const later = await f.post(form.slug, { body: { n: "2" }, headers: keyed("day-old") });
  expect([later.status, later.headers.get("idempotent-replayed")]).toEqual([200, null]);
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ n: "1" }, { n: "2" }]);
  expect(await records(form.id)).toBe(1);
  // The server's purger, its clock a day and an hour ahead.
  const purger = startPurger(f.t.services.retention, {
    intervalMs: 3_600_000,
    now: () => Date.now() + 25 * 3_600_000,
    log: { line: () => undefined, error: (message, error) => console.error(message, error) },
    idempotency: f.t.services.idempotency,
  });
  await purger.last;
  await purger.stop();
  expect(await records(form.id)).toBe(0);
});

test("an erasure deletes the kept answer with the submission: nothing of the visitor stays in idempotency_keys", async () => {
  const form = await f.form();
  await f.post(form.slug, { body: { email: "eve@example.com", _next: "https://site.example/done?who=eve%40example.com" }, headers: keyed("erase-me") });
  // An address given only in _next, which nothing but the kept answer holds, is found there too.
  await f.post(form.slug, { body: { name: "Eve", _next: "https://site.example/done?who=Eve%40Example.com" }, headers: keyed("erase-me-too") });
  await f.post(form.slug, { body: { name: "Zoe", _next: "https://site.example/done?who=zoe%40example.com" }, headers: keyed("keep-me") });
  expect(await records(form.id)).toBe(3);
  const erased = await f.t.request("POST", "/api/submissions/erase", { key: f.key, body: { email: "eve@example.com" } });
  expect(await erased.json()).toEqual({ erased: 2, forms: { [form.id]: 2 }, dryRun: false });
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ name: "Zoe" }]);
  const rows: unknown[] = await f.t.services.store.db.all(sql`SELECT key FROM idempotency_keys WHERE form_id = ${form.id}`);
  expect(rows).toEqual([{ key: "keep-me" }]);
});

test("a key stored by another process while this post was read: the write stores nothing and the post gets that answer", async () => {
  const form = await f.form();
  const first = await f.post(form.slug, { body: { email: "ann@example.com" }, headers: keyed("two-processes") });
  const row = (await f.t.services.forms.findBySlug(form.slug))!;
  // The write as a second process makes it, past its own look-up: the guard in the write itself refuses it.
  const write = f.t.services.submissions.receive(
    row,
    { email: "ann@example.com" },
    {
      isSpam: false,
      idempotency: { key: "two-processes", fingerprint: "other", location: `${BASE}/thanks`, redirected: false },
    },
  );
  await expect(write).rejects.toBeInstanceOf(IdempotencyKeyTaken);
  expect((await f.stored(form.id)).map((s) => s.id)).toEqual([((await first.json()) as { id: string }).id]);
});

test("an htmx repeat gets the same fragment and HX-Redirect, marked as a replay and readable from another origin", async () => {
  const form = await f.form({ redirectUrl: "https://site.example/done" });
  const htmx = { "hx-request": "true", origin: "https://site.example", "content-type": "application/x-www-form-urlencoded" };
  const answers = [];
  for (let i = 0; i < 2; i++) {
    const answer = await f.post(form.slug, { body: "email=ann%40example.com", headers: keyed("htmx-1", htmx) });
    answers.push({
      status: answer.status,
      redirect: answer.headers.get("hx-redirect"),
      replayed: answer.headers.get("idempotent-replayed"),
      exposed: answer.headers.get("access-control-expose-headers"),
      body: await answer.text(),
    });
  }
  const first = { status: 200, redirect: "https://site.example/done", replayed: null, exposed: "Retry-After, HX-Redirect, Idempotent-Replayed" };
  expect(answers).toEqual([
    { ...first, body: expect.stringContaining("Thank you!") },
    { ...first, replayed: "true", body: answers[0]!.body },
  ]);
  expect((await f.stored(form.id)).length).toBe(1);
});
