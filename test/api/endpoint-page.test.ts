import { afterEach, expect, test } from "bun:test";
import { publicFixture, type PublicFixture } from "./public-support.ts";

let f: PublicFixture;
afterEach(() => f.close());

test("opening a form's address in a browser shows a page about it, not a JSON error", async () => {
  f = await publicFixture();
  const form = await f.form();
  const response = await f.t.request("GET", `/f/${form.slug}`, { headers: { accept: "text/html" } });
  expect(response.status).toBe(405);
  expect(response.headers.get("allow")).toBe("POST, OPTIONS");
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(await response.text()).toContain("This is a form's submission address");
});

test("a redirectUrl with a line break or tab in it is refused, not stored in a form the parser would rewrite", async () => {
  f = await publicFixture();
  for (const redirectUrl of ["https://example.com/\nthanks", "https://exa\tmple.com/"]) {
    const response = await f.t.request("POST", "/api/forms", { key: f.key, body: { name: "Contact", redirectUrl } });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string; field: string } }).error).toMatchObject({ code: "invalid_body", field: "redirectUrl" });
  }
});

test("a client asking for JSON at a form's address gets the API's JSON error, with or without a page, and 404 for no form", async () => {
  f = await publicFixture();
  const bare = await f.form();
  const paged = await f.form({ fields: [{ name: "email", type: "email" }], page: { enabled: true } });
  for (const slug of [bare.slug, paged.slug]) {
    const response = await f.t.request("GET", `/f/${slug}`, { headers: { accept: "application/json" } });
    expect({
      status: response.status,
      allow: response.headers.get("allow"),
      type: response.headers.get("content-type"),
      error: ((await response.json()) as { error: unknown }).error,
    }).toEqual({
      status: 405,
      allow: "POST, OPTIONS",
      type: "application/json; charset=utf-8",
      error: {
        code: "method_not_allowed",
        message: "This is a form's submission address: POST a submission here. Its page, when it has one, is for a browser.",
      },
    });
  }
  const missing = await f.t.request("GET", "/f/no-such-form", { headers: { accept: "application/json" } });
  expect({ status: missing.status, code: ((await missing.json()) as { error: { code: string } }).error.code }).toEqual({ status: 404, code: "form_not_found" });
});
