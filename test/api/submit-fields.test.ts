import { afterAll, beforeAll, expect, test } from "bun:test";
import { publicFixture, type PublicFixture } from "./public-support.ts";

// The fields a form declares (docs/api.md, "Fields of a form"): a post that breaks them stores nothing and names every field at fault.

let f: PublicFixture;
beforeAll(async () => {
  f = await publicFixture();
});
afterAll(() => f.close());

const FIELDS = [
  { name: "email", label: "Your email", type: "email", required: true },
  { name: "age", type: "number", min: 18, max: 120 },
  { name: "topic", type: "select", options: ["sales", "support"], required: true },
  { name: "terms", type: "checkbox", required: true },
  { name: "message", type: "textarea", minLength: 5, maxLength: 50 },
];
const form = (extra: Record<string, unknown> = {}) => f.form({ fields: FIELDS, ...extra });
const urlencoded = { "content-type": "application/x-www-form-urlencoded" };

test("the fields are set and shown through the API; a bad declaration is 400 naming fields", async () => {
  const made = (await form({ otherFields: "drop" })) as unknown as { fields: unknown[]; otherFields: string };
  expect({ fields: made.fields, otherFields: made.otherFields }).toEqual({ fields: FIELDS, otherFields: "drop" });
  const bad = await f.t.request("POST", "/api/forms", { key: f.key, body: { name: "x", fields: [{ name: "a", type: "colour" }] } });
  expect({ status: bad.status, field: ((await bad.json()) as { error: { field: string } }).error.field }).toEqual({
    status: 400,
    field: expect.stringMatching(/^fields/),
  });
  const cleared = await f.t.request("PATCH", `/api/forms/${(made as unknown as { id: string }).id}`, { key: f.key, body: { fields: null } });
  expect(((await cleared.json()) as { fields: unknown[] }).fields).toEqual([]);
});

test("a post that breaks them is 400 validation_failed with every field at fault, and nothing is stored", async () => {
  const { id, slug } = await form();
  const answer = await f.post(slug, { body: "email=nope&age=12&topic=gossip&message=hi", headers: { ...urlencoded, accept: "application/json" } });
  const body = (await answer.json()) as { error: { code: string }; errors: { field: string; code: string; message: string }[] };
  expect({ status: answer.status, code: body.error.code, errors: body.errors.map((e) => [e.field, e.code]) }).toEqual({
    status: 400,
    code: "validation_failed",
    errors: [
      ["email", "invalid_email"],
      ["age", "too_small"],
      ["topic", "invalid_option"],
      ["terms", "required"],
      ["message", "too_short"],
    ],
  });
  expect(body.errors[0]!.message).toContain("Your email");
  expect(await f.stored(id)).toEqual([]);
});

test("values are read as HTML forms send them: numbers as numbers, a checkbox as true, an empty optional input absent", async () => {
  const { id, slug } = await form();
  const answer = await f.post(slug, { body: "email=ann%40example.com&age=42&topic=sales&terms=on&message=&extra=kept", headers: urlencoded });
  expect(answer.status).toBe(303);
  expect((await f.stored(id)).map((s) => s.data)).toEqual([{ email: "ann@example.com", age: 42, topic: "sales", terms: true, extra: "kept" }]);
});

test("otherFields drop leaves undeclared fields out; refuse names them", async () => {
  const dropping = await form({ otherFields: "drop" });
  const refusing = await form({ otherFields: "refuse" });
  const good = "email=ann%40example.com&topic=support&terms=on&extra=x";
  expect((await f.post(dropping.slug, { body: good, headers: urlencoded })).status).toBe(303);
  expect((await f.stored(dropping.id)).map((s) => Object.keys(s.data).sort())).toEqual([["email", "terms", "topic"]]);
  const refused = await f.post(refusing.slug, { body: good, headers: { ...urlencoded, accept: "application/json" } });
  expect(((await refused.json()) as { errors: unknown[] }).errors).toEqual([{ field: "extra", code: "unknown_field", message: expect.any(String) }]);
});

test("a browser that did not ask for JSON gets a page listing the fields at fault, with a way back", async () => {
  const { slug } = await form();
  const answer = await f.post(slug, { body: "email=nope&topic=sales&terms=on", headers: { ...urlencoded, referer: "https://site.example/contact" } });
  const page = await answer.text();
  expect({ status: answer.status, type: answer.headers.get("content-type") }).toEqual({ status: 400, type: "text/html; charset=utf-8" });
  expect(page).toContain('<li data-field="email">Your email: enter an email address such as ann@example.com.</li>');
  expect(page).toContain('<a href="https://site.example/contact">Go back</a>');
});

test("a date field takes only days of the calendar: 2026-02-30 and 31 April are refused, 29 February of a leap year kept", async () => {
  const { id, slug } = await f.form({ fields: [{ name: "day", type: "date" }] });
  const codes: Record<string, string | number> = {};
  for (const day of ["2026-02-30", "2026-04-31", "2026-02-29", "2028-02-29", "2026-12-31", "2026-13-01", "2026-00-10"]) {
    const answer = await f.post(slug, { body: `day=${day}`, headers: { ...urlencoded, accept: "application/json" } });
    codes[day] = answer.status === 200 ? 200 : ((await answer.json()) as { errors: { code: string }[] }).errors[0]!.code;
  }
  expect(codes).toEqual({
    "2026-02-30": "invalid_date",
    "2026-04-31": "invalid_date",
    "2026-02-29": "invalid_date",
    "2028-02-29": 200,
    "2026-12-31": 200,
    "2026-13-01": "invalid_date",
    "2026-00-10": "invalid_date",
  });
  expect((await f.stored(id)).map((s) => s.data.day)).toEqual(["2028-02-29", "2026-12-31"]);
});
