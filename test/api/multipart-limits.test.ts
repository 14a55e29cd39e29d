import { afterAll, beforeAll, expect, test } from "bun:test";
import { MAX_PARTS } from "../../src/http/multipart.ts";
import { testApp, type TestApp } from "../helpers/app.ts";

// A multipart post's parts are counted in its bytes, before the parser works on them.
let t: TestApp;
let slug: string;
let formId: string;
beforeAll(async () => {
  t = await testApp({ maxBody: 2 * 1024 * 1024 });
  const account = await t.account();
  ({ slug, id: formId } = await account.form({ fileUploads: true }));
});
afterAll(() => t.close());

/** A multipart body of `count` parts named `tag`, each empty or holding `value`. */
function parts(count: number, value = ""): { body: string; type: string } {
  const boundary = "x";
  const part = `--${boundary}\r\ncontent-disposition: form-data; name="tag"\r\n\r\n${value}\r\n`;
  return { body: `${part.repeat(count)}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

const post = (body: { body: string; type: string }) =>
  t.request("POST", `/f/${slug}`, { body: body.body, headers: { "content-type": body.type, accept: "application/json" } });

test("115,000 empty parts in 1 MiB are refused as invalid_body, and nothing is stored", async () => {
  // Parts without even a header: nine bytes each.
  const crafted = { body: `${"--x\r\n\r\n\r\n".repeat(115_000)}--x--\r\n`, type: "multipart/form-data; boundary=x" };
  expect(crafted.body.length).toBeLessThan(1024 * 1024 + 100);
  const answer = await post(crafted);
  expect({ status: answer.status, body: await answer.json() }).toMatchObject({
    status: 400,
    body: { error: { code: "invalid_body", message: `A multipart body may have at most ${MAX_PARTS} parts.` } },
  });
  expect((await t.services.store.db.query.forms.findFirst({ where: (f, { eq }) => eq(f.id, formId) }))?.submissionCount).toBe(0);
});

test(`a checkbox group of ${MAX_PARTS} boxes is a post like any other`, async () => {
  const answer = await post(parts(MAX_PARTS, "on"));
  expect(answer.status).toBe(200);
});
