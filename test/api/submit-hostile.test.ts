import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectJsonError, publicFixture, type PublicFixture } from "./public-support.ts";

// What a hostile client sends to the public endpoint: bodies built to hurt the server or later readers of the data.
const JSON_POST = { "content-type": "application/json", accept: "application/json" };

let fx: PublicFixture;
beforeAll(async () => {
  fx = await publicFixture();
});
afterAll(() => fx.close());

const nested = (depth: number) => `{"deep":${"[".repeat(depth - 1)}${"]".repeat(depth - 1)}}`;

describe("deeply nested JSON", () => {
  test("40,000 levels are 400 invalid_body, nothing is stored, and the form still lists and exports", async () => {
    const form = await fx.form();
    for (const depth of [40_000, 39_998]) {
      const answer = await fx.post(form.slug, { body: nested(depth), headers: JSON_POST });
      await expectJsonError(answer, 400, "invalid_body");
    }
    expect(await fx.stored(form.id)).toEqual([]);
    const exported = await fx.t.request("GET", `/api/forms/${form.id}/submissions/export?format=json`, { key: fx.key });
    expect({ status: exported.status, body: await exported.text() }).toEqual({ status: 200, body: "[]\n" });
  });

  test("32 levels (the top object included) are stored as sent; 33 are refused", async () => {
    const form = await fx.form();
    const ok = await fx.post(form.slug, { body: nested(32), headers: JSON_POST });
    expect(ok.status).toBe(200);
    const [stored] = await fx.stored(form.id);
    expect(JSON.stringify(stored!.data)).toBe(nested(32));
    const refused = await fx.post(form.slug, { body: nested(33), headers: JSON_POST });
    const body = await refused.json();
    expect({ status: refused.status, body }).toEqual({
      status: 400,
      body: {
        error: { code: "invalid_body", message: "The body nests objects or arrays more than 32 levels deep." },
        errors: [{ code: "invalid_body", message: "The body nests objects or arrays more than 32 levels deep." }],
      },
    });
  });

  test("brackets inside strings do not count as nesting", async () => {
    const form = await fx.form();
    const text = `${"[[[[".repeat(100)}\\"{{{{`;
    const answer = await fx.post(form.slug, { body: `{"note":"${text}"}`, headers: JSON_POST });
    expect(answer.status).toBe(200);
    expect((await fx.stored(form.id))[0]!.data).toEqual({ note: `${"[[[[".repeat(100)}"{{{{` });
  });

  test("the management API refuses deep JSON the same way", async () => {
    const answer = await fx.t.request("POST", "/api/forms", {
      key: fx.key,
      body: `{"name":"x","allowedDomains":${"[".repeat(5000)}${"]".repeat(5000)}}`,
      headers: { "content-type": "application/json" },
    });
    await expectJsonError(answer, 400, "invalid_body");
  });
});

describe("numbers a double cannot hold", () => {
  for (const [name, literal] of [
    ["too large", "1e400"],
    ["an integer beyond 2^53", "123456789012345678901234567890"],
    ["2^53 + 1", "9007199254740993"],
    ["too precise", "0.1000000000000000000001"],
    ["too small", "1e-400"],
  ]) {
    test(`${name} (${literal}) is 400 invalid_body naming the field, and nothing is stored`, async () => {
      const form = await fx.form();
      const answer = await fx.post(form.slug, { body: `{"name":"Ann","amount":{"value":[${literal}]}}`, headers: JSON_POST });
      await expectJsonError(answer, 400, "invalid_body", "amount");
      expect(await fx.stored(form.id)).toEqual([]);
    });
  }

  test("numbers that survive the round trip are kept as sent", async () => {
    const form = await fx.form();
    const answer = await fx.post(form.slug, {
      body: '{"a":9007199254740992,"b":0.1,"c":1E2,"d":-1.5e-7,"e":100000000000000000000,"f":2.50}',
      headers: JSON_POST,
    });
    expect(answer.status).toBe(200);
    expect((await fx.stored(form.id))[0]!.data).toEqual({ a: 9007199254740992, b: 0.1, c: 100, d: -1.5e-7, e: 1e20, f: 2.5 });
  });

  test("the same digits sent as a string are kept exactly", async () => {
    const form = await fx.form();
    const answer = await fx.post(form.slug, { body: '{"amount":"123456789012345678901234567890"}', headers: JSON_POST });
    expect(answer.status).toBe(200);
    expect((await fx.stored(form.id))[0]!.data).toEqual({ amount: "123456789012345678901234567890" });
  });
});

describe("fields named like JavaScript's own properties", () => {
  test("other rows' CSV cells stay empty, and __proto__ is kept as data", async () => {
    const form = await fx.form();
    await fx.post(form.slug, { body: { name: "Ann" }, headers: JSON_POST });
    await fx.post(form.slug, {
      body: '{"name":"Bob","toString":"t","constructor":"c","hasOwnProperty":"h","__proto__":{"isAdmin":true},"valueOf":"v"}',
      headers: JSON_POST,
    });
    await fx.post(form.slug, { body: { name: "Cy" }, headers: JSON_POST });
    const csv = await (await fx.t.request("GET", `/api/forms/${form.id}/submissions/export?format=csv&order=asc`, { key: fx.key })).text();
    const rows = csv
      .trimEnd()
      .split("\n")
      .map((row) => row.split(",").slice(2));
    expect(rows).toEqual([
      ["name", "toString", "constructor", "hasOwnProperty", "__proto__", "valueOf"],
      ["Ann", "", "", "", "", ""],
      ["Bob", "t", "c", "h", '"{""isAdmin"":true}"', "v"],
      ["Cy", "", "", "", "", ""],
    ]);
    expect(csv).not.toContain("native code");
    const stored = await fx.stored(form.id);
    expect(stored[1]!.data).toEqual(
      JSON.parse('{"name":"Bob","toString":"t","constructor":"c","hasOwnProperty":"h","__proto__":{"isAdmin":true},"valueOf":"v"}'),
    );
    expect(Object.hasOwn(stored[1]!.data, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
    const list = await (await fx.t.request("GET", `/api/forms/${form.id}/submissions`, { key: fx.key })).json();
    expect(list.fields).toEqual(["name", "toString", "constructor", "hasOwnProperty", "__proto__", "valueOf"]);
  });
});
