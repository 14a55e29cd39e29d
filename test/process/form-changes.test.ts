import { afterAll, beforeAll, expect, test } from "bun:test";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";

// The server remembers forms by slug between writes; a change made by another process (the local CLI on the
// same file) must still be seen by the very next post.
let server: ServerProcess;
beforeAll(async () => {
  server = await startServerProcess({ args: ["--rate-limit", "0"] });
  expect((await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--db", server.db])).code).toBe(0);
});
afterAll(() => server.stop());

const post = async (slug: string) => {
  const answer = await fetch(`${server.url}/f/${slug}`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: '{"email":"ann@example.com"}',
  });
  return { status: answer.status, code: ((await answer.json()) as { error?: { code: string } }).error?.code ?? "ok" };
};

test("a form turned off, renamed or removed by the local CLI is answered as such at once by the running server", async () => {
  // Warm: the server has read (and remembered) the form, and an unknown slug.
  expect(await post("contact")).toEqual({ status: 200, code: "ok" });
  expect(await post("elsewhere")).toEqual({ status: 404, code: "form_not_found" });

  expect((await runCli(["forms", "update", "contact", "--active", "false", "--db", server.db])).code).toBe(0);
  expect(await post("contact")).toEqual({ status: 403, code: "form_inactive" });

  expect((await runCli(["forms", "update", "contact", "--active", "true", "--slug", "elsewhere", "--db", server.db])).code).toBe(0);
  expect(await post("contact")).toEqual({ status: 404, code: "form_not_found" });
  expect(await post("elsewhere")).toEqual({ status: 200, code: "ok" });

  expect((await runCli(["forms", "delete", "elsewhere", "--yes", "--db", server.db])).code).toBe(0);
  expect(await post("elsewhere")).toEqual({ status: 404, code: "form_not_found" });
});
