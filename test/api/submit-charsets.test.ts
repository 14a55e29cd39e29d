import { afterAll, beforeAll, expect, test } from "bun:test";
import { publicFixture, type PublicFixture } from "./public-support.ts";

// Every character kept (docs/api.md, "Charsets and content encoding"): bodies are decoded by the request's charset, a part's own, or `_charset_`.

let f: PublicFixture;
beforeAll(async () => {
  f = await publicFixture();
});
afterAll(() => f.close());

const TYPED = "José Köln – 5 €";
// What a windows-1252 page sends for it: é E9, ö F6, – 96, € 80.
const CP1252 = "Jos%E9+K%F6ln+%96+5+%80";
// 日本 in Shift_JIS.
const SJIS = "%93%FA%96%7B";
const urlencoded = (charset?: string) => ({
  accept: "application/json",
  "content-type": `application/x-www-form-urlencoded${charset ? `; charset=${charset}` : ""}`,
});

test("urlencoded bodies are decoded by their charset parameter, or by _charset_, which is not stored", async () => {
  const form = await f.form();
  const posts = [
    f.post(form.slug, { body: `name=${CP1252}`, headers: urlencoded("windows-1252") }),
    f.post(form.slug, { body: `name=${CP1252}&_charset_=windows-1252`, headers: urlencoded() }),
    f.post(form.slug, { body: `_charset_=ISO-8859-1&name=Jos%E9+K%F6ln`, headers: urlencoded() }),
    f.post(form.slug, { body: `name=${SJIS}`, headers: urlencoded("shift_jis") }),
    f.post(form.slug, { body: `name=${encodeURIComponent(TYPED)}`, headers: urlencoded() }),
  ];
  for (const answer of posts) expect((await answer).status).toBe(200);
  // Sent at once, so stored in no promised order: compared as a sorted list.
  const names = (await f.stored(form.id)).map((s) => (s.data as { name: string }).name);
  expect(names.sort()).toEqual([TYPED, TYPED, "José Köln", "日本", TYPED].sort());
});

test("a charset formsvc cannot decode is 415; bytes invalid in the charset in force are 400; nothing is stored", async () => {
  const form = await f.form();
  const unknown = await f.post(form.slug, { body: "name=x", headers: urlencoded("x-klingon") });
  const invalid = await f.post(form.slug, { body: "name=%FF%FE", headers: urlencoded() });
  const invalidSjis = await f.post(form.slug, { body: "name=%82", headers: urlencoded("shift_jis") });
  expect([unknown, invalid, invalidSjis].map((r) => r.status)).toEqual([415, 400, 400]);
  expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe("unsupported_charset");
  expect(((await invalid.json()) as { error: { code: string; field: string } }).error).toMatchObject({ code: "invalid_body", field: "name" });
  expect(await f.stored(form.id)).toEqual([]);
});

test("multipart: each part is decoded by its own charset, else _charset_, else UTF-8", async () => {
  const form = await f.form();
  const boundary = "----formsvc";
  const part = (name: string, value: Uint8Array, type?: string) => [
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n${type ? `Content-Type: ${type}\r\n` : ""}\r\n`),
    Buffer.from(value),
    Buffer.from("\r\n"),
  ];
  const cp1252 = Buffer.from([0x4a, 0x6f, 0x73, 0xe9, 0x20, 0x96, 0x20, 0x80, 0x20, 0x93, 0x94]); // José – € “”
  const body = Buffer.concat([
    ...part("declared", cp1252, "text/plain; charset=windows-1252"),
    ...part("utf8", Buffer.from("Köln ✓")),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  const answer = await f.post(form.slug, {
    body: new Uint8Array(body),
    headers: { accept: "application/json", "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  expect(answer.status).toBe(200);
  const withCharset = Buffer.concat([...part("_charset_", Buffer.from("windows-1252")), ...part("name", cp1252), Buffer.from(`--${boundary}--\r\n`)]);
  const second = await f.post(form.slug, {
    body: new Uint8Array(withCharset),
    headers: { accept: "application/json", "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  expect(second.status).toBe(200);
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ declared: "José – € “”", utf8: "Köln ✓" }, { name: "José – € “”" }]);
  const invalid = await f.post(form.slug, {
    body: new Uint8Array(Buffer.concat([...part("name", Buffer.from([0xff])), Buffer.from(`--${boundary}--\r\n`)])),
    headers: { accept: "application/json", "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  expect(invalid.status).toBe(400);
});

test("a multipart field name that is not UTF-8 is 400 invalid_body, not stored under U+FFFD; a UTF-8 one is kept", async () => {
  const form = await f.form();
  const multipart = (name: Uint8Array) =>
    Buffer.concat([Buffer.from('--b\r\nContent-Disposition: form-data; name="'), name, Buffer.from('"\r\n\r\nhello\r\n--b--\r\n')]);
  const headers = { accept: "application/json", "content-type": "multipart/form-data; boundary=b" };
  const latin1 = await f.post(form.slug, { body: multipart(Buffer.from([0x4e, 0x61, 0x6d, 0xe9])), headers });
  expect({ status: latin1.status, code: ((await latin1.json()) as { error: { code: string } }).error.code }).toEqual({ status: 400, code: "invalid_body" });
  const utf8 = await f.post(form.slug, { body: multipart(Buffer.from("Namé")), headers });
  expect(utf8.status).toBe(200);
  expect((await f.stored(form.id)).map((s) => s.data)).toEqual([{ Namé: "hello" }]);
});
