import { afterEach, expect, test } from "bun:test";
import { expectJsonError, publicFixture, type PublicFixture } from "./public-support.ts";

// Where two rules of the API meet: the answer chosen, and why, is written in docs/api.md (Decisions).
let f: PublicFixture;
afterEach(() => f.close());

const json = { accept: "application/json" };

test("a post that fills only the honeypot gets the success answer and is kept as spam, so the bot learns nothing", async () => {
  f = await publicFixture();
  const form = await f.form();
  const response = await f.post(form.slug, { body: { _gotcha: "http://spam.example" }, headers: json });
  expect(response.status).toBe(200);
  const answer = (await response.json()) as { success: boolean; message: string; id: string; next: string };
  expect(answer).toEqual({ success: true, message: expect.any(String), id: expect.stringMatching(/^sub_/), next: expect.stringMatching(/^https?:\/\//) });
  expect(await f.stored(form.id)).toEqual([
    { id: answer.id, data: {}, createdAt: expect.any(String), isRead: false, isStarred: false, isSpam: true, spamReason: "honeypot" },
  ]);
});

test("a post with nothing but an empty honeypot is still an empty submission", async () => {
  f = await publicFixture();
  const form = await f.form();
  await expectJsonError(await f.post(form.slug, { body: { _gotcha: "" }, headers: json }), 400, "empty_submission");
  expect(await f.stored(form.id)).toEqual([]);
});

test("a bad _next is refused for a fetch() client too, before anything is stored", async () => {
  f = await publicFixture();
  const form = await f.form();
  for (const next of ["/thanks.html", "javascript:alert(1)"]) {
    await expectJsonError(await f.post(form.slug, { body: { email: "a@example.com", _next: next }, headers: json }), 400, "invalid_redirect", "_next");
  }
  expect(await f.stored(form.id)).toEqual([]);
});

test("an OPTIONS request without Origin is no preflight and is not refused", async () => {
  f = await publicFixture();
  const form = await f.form({ allowedDomains: ["example.com"] });
  const response = await f.post(form.slug, { method: "OPTIONS" });
  expect(response.status).toBe(204);
  expect(response.headers.get("access-control-allow-origin")).toBeNull();
});

test("an oversized management body is 413 whatever its content type says", async () => {
  f = await publicFixture({ maxBody: 100 });
  const response = await f.t.request("POST", "/api/forms", { key: f.key, body: "x".repeat(500), headers: { "content-type": "text/plain" } });
  await expectJsonError(response, 413, "payload_too_large");
});

test("a form patch that changes nothing leaves updatedAt alone; one that changes something moves it", async () => {
  f = await publicFixture();
  const form = await f.form({ name: "Contact" });
  const before = (await (await f.t.request("GET", `/api/forms/${form.id}`, { key: f.key })).json()) as { updatedAt: string };
  await Bun.sleep(5); // a later millisecond, so that a moved updatedAt can be seen
  const same = (await (await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { name: "Contact", isActive: true } })).json()) as {
    updatedAt: string;
  };
  expect(same.updatedAt).toBe(before.updatedAt);
  const renamed = (await (await f.t.request("PATCH", `/api/forms/${form.id}`, { key: f.key, body: { name: "Contact us" } })).json()) as {
    name: string;
    updatedAt: string;
  };
  expect(renamed.name).toBe("Contact us");
  expect(renamed.updatedAt > before.updatedAt).toBe(true);
});

test("a submission of more than 200 fields, or with a field name over 200 characters, is refused and stores nothing", async () => {
  f = await publicFixture();
  const form = await f.form();
  const many = Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`f${i}`, "x"]));
  await expectJsonError(await f.post(form.slug, { body: many, headers: json }), 400, "invalid_body");
  await expectJsonError(await f.post(form.slug, { body: { ["n".repeat(201)]: "x" }, headers: json }), 400, "invalid_body", "n".repeat(40));
  expect(await f.stored(form.id)).toEqual([]);
  // The limits themselves are allowed.
  const most = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`${"n".repeat(196)}${String(i).padStart(3, "0")}`, i]));
  expect((await f.post(form.slug, { body: most, headers: json })).status).toBe(200);
});

/** A field name of `count` characters outside ASCII, emoji among them: 5 UTF-16 units and 12 UTF-8 bytes every 4. */
const wideName = (count: number) => Array.from("名前😀ü".repeat(60)).slice(0, count).join("");

test("a field name of 200 characters outside ASCII is kept whole in JSON, urlencoded and multipart; 201 is a 400 naming it", async () => {
  f = await publicFixture();
  const form = await f.form();
  const bodies = (name: string) => {
    const multipart = new FormData();
    multipart.append(name, "x");
    return { json: { [name]: "x" }, urlencoded: new URLSearchParams([[name, "x"]]), multipart };
  };
  const longest = wideName(200);
  expect({ utf16Units: longest.length, utf8Bytes: Buffer.byteLength(longest) }).toEqual({ utf16Units: 250, utf8Bytes: 600 });
  for (const [encoding, body] of Object.entries(bodies(longest))) {
    const answer = await f.post(form.slug, { body, headers: json });
    expect({ encoding, status: answer.status }).toEqual({ encoding, status: 200 });
  }
  expect((await f.stored(form.id)).map((submission) => submission.data)).toEqual([{ [longest]: "x" }, { [longest]: "x" }, { [longest]: "x" }]);
  for (const body of Object.values(bodies(wideName(201)))) {
    await expectJsonError(await f.post(form.slug, { body, headers: json }), 400, "invalid_body", wideName(40));
  }
  expect(await f.stored(form.id)).toHaveLength(3);
});

test("the same 200-character name declared as a form's required field is taken and enforced; 201 characters are refused", async () => {
  f = await publicFixture();
  const longest = wideName(200);
  const form = await f.form({ fields: [{ name: longest, label: "Name", type: "text", required: true }], otherFields: "refuse" });
  const faults = await f.post(form.slug, { body: { other: "x" }, headers: json });
  expect({
    status: faults.status,
    errors: ((await faults.json()) as { errors: { field: string; code: string }[] }).errors.map(({ field, code }) => ({ field, code })),
  }).toEqual({
    status: 400,
    errors: [
      { field: longest, code: "required" },
      { field: "other", code: "unknown_field" },
    ],
  });
  expect((await f.post(form.slug, { body: { [longest]: "Ann" }, headers: json })).status).toBe(200);
  expect((await f.stored(form.id)).map((submission) => submission.data)).toEqual([{ [longest]: "Ann" }]);
  const refused = await f.t.request("POST", "/api/forms", { key: f.key, body: { name: "Contact", fields: [{ name: wideName(201), type: "text" }] } });
  expect({ status: refused.status, body: await refused.json() }).toEqual({
    status: 400,
    body: expect.objectContaining({ error: { code: "invalid_body", message: "fields[].name must be at most 200 characters.", field: "fields.0.name" } }),
  });
});
