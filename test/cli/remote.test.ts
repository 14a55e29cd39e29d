import { afterEach, expect, test } from "bun:test";
import { runInProcess } from "../helpers/fake-io.ts";
import { httpRecorder, jsonAnswer, type HttpRecorder } from "../helpers/http-recorder.ts";

// Remote mode against a recorded server (the GitHub CLI's httpmock): what the command sends for its flags, and
// what it prints for the answers a real server would give, including those a test server cannot be made to give.

const form = {
  id: "frm_0f3k9x2m7q8r4t6v1w5y0z3a",
  name: "Contact",
  slug: "contact",
  isActive: true,
  submissionCount: 2,
  createdAt: "2026-11-22T12:00:00.000Z",
};

let server: HttpRecorder;
afterEach(() => server?.stop());

const remote = (args: string[], options: { tty?: boolean } = {}) =>
  runInProcess(args, { env: { FORMSVC_URL: server.url, FORMSVC_KEY: "sk_live_recorded", NO_COLOR: "1" }, tty: options.tty });

test("forms list: one GET with the key, rows tab-separated when piped and a table on a terminal", async () => {
  server = httpRecorder();
  server.on("GET", "/api/forms", jsonAnswer(200, { forms: [form] }));
  server.on("GET", "/api/forms", jsonAnswer(200, { forms: [form] }));
  expect(await remote(["forms", "list"])).toEqual({
    code: 0,
    stdout: `${form.id}\tContact\tcontact\tyes\t2\t2026-11-22T12:00:00.000Z\n`,
    stderr: "",
  });
  expect(await remote(["forms", "list"], { tty: true })).toEqual({
    code: 0,
    stdout: `${"ID".padEnd(form.id.length)}  NAME     SLUG     ACTIVE  SUBMISSIONS  CREATED\n${form.id}  Contact  contact  yes     2            2026-11-22T12:00:00.000Z\n`,
    stderr: "",
  });
  server.verify();
  expect(server.requests.map(({ method, path, query, authorization }) => ({ method, path, query, authorization }))).toEqual([
    { method: "GET", path: "/api/forms", query: {}, authorization: "Bearer sk_live_recorded" },
    { method: "GET", path: "/api/forms", query: {}, authorization: "Bearer sk_live_recorded" },
  ]);
});

test("submissions list: the flags become the declared query, checked before anything is sent", async () => {
  server = httpRecorder();
  server.on("GET", "/api/forms/contact/submissions", (request) =>
    jsonAnswer(200, { submissions: [], fields: [], pagination: { limit: Number(request.query.limit), offset: 0, total: 0, hasMore: false, nextCursor: null } }),
  );
  expect(await remote(["submissions", "list", "contact", "--limit", "5", "--filter", "unread", "--order", "asc"])).toEqual({ code: 0, stdout: "", stderr: "" });
  server.verify();
  expect(server.requests[0]!.query).toEqual({ limit: "5", filter: "unread", order: "asc" });
  expect(await remote(["submissions", "list", "contact", "--since", "last week"])).toMatchObject({ code: 2, stdout: "" });
  expect(server.requests).toHaveLength(1);
});

test("forms update: one PATCH with the JSON body the flags make", async () => {
  server = httpRecorder();
  server.on("PATCH", "/api/forms/contact", (request) =>
    jsonAnswer(200, { ...form, ...(request.body as object), allowedDomains: [], fields: [], spamFilter: { enabled: true, threshold: 0.6 } }),
  );
  const result = await remote(["forms", "update", "contact", "--active", "false", "--domains", "", "--json"]);
  expect(result.code).toBe(0);
  expect(JSON.parse(result.stdout)).toMatchObject({ isActive: false });
  expect(server.requests[0]).toMatchObject({ method: "PATCH", contentType: "application/json", body: { isActive: false, allowedDomains: [] } });
});

test("the server's error is one line with its exit code; an answer not in formsvc's shape is named by its status", async () => {
  server = httpRecorder();
  const refused = { error: { code: "forbidden", message: "This key lacks the delete permission." }, errors: [] };
  server.on("DELETE", "/api/keys/key_1", jsonAnswer(403, refused));
  server.on("GET", "/api/forms/contact", new Response("<h1>Bad gateway</h1>", { status: 502, headers: { "content-type": "text/html" } }));
  server.on("GET", "/api/keys", jsonAnswer(404, { error: { code: "not_found", message: "No such \u001b[31mthing\u001b[0m." }, errors: [] }));
  expect(await remote(["keys", "revoke", "key_1"])).toEqual({ code: 4, stdout: "", stderr: "formsvc: This key lacks the delete permission.\n" });
  expect(await remote(["forms", "get", "contact"])).toEqual({ code: 1, stdout: "", stderr: `formsvc: the server at ${server.url} answered 502 Bad Gateway\n` });
  // A server's message is not ours to trust: its escape characters are shown, not sent to the terminal.
  expect(await remote(["keys", "list"])).toEqual({ code: 5, stdout: "", stderr: "formsvc: No such \\x1b[31mthing\\x1b[0m.\n" });
  server.verify();
});
