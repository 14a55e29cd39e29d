import { afterAll, beforeAll, expect, test } from "bun:test";
import { startWorld, type CliWorld } from "./world.ts";

// The world's server runs without --smtp-url: mail is off, so the live form's notifications stay pending.
let world: CliWorld;
let ids: string[];
beforeAll(async () => {
  world = await startWorld();
  await world.ok(["forms", "create", "--name", "Contact", "--slug", "contact", "--email", "owner@example.com"]);
  await world.ok(["forms", "create", "--name", "Quiet", "--slug", "quiet"]);
  ids = [
    await world.post("contact", { name: "Ann", _subject: "First" }),
    await world.post("contact", { name: "Bob", _subject: "Second\x1b[31m red", _replyto: "bob@example.com" }),
  ];
});
afterAll(() => world.stop());

const rowsOf = (stdout: string) =>
  stdout
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));
const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

test("piped: tab-separated rows, newest first, the same in both modes", async () => {
  const [local, remote] = await world.both(["notifications", "list", "contact"]);
  expect(local).toEqual(remote);
  expect({ code: local.code, stderr: local.stderr }).toEqual({ code: 0, stderr: "" });
  expect(rowsOf(local.stdout)).toEqual([
    [expect.stringMatching(/^ntf_/), ISO, "notification", "pending", "0", "owner@example.com", "Second [31m red", ids[1], "", ISO, ""],
    [expect.stringMatching(/^ntf_/), ISO, "notification", "pending", "0", "owner@example.com", "First", ids[0], "", ISO, ""],
  ]);
});

test("--json prints the API's objects; --limit and --offset page them", async () => {
  const [local, remote] = await world.both(["notifications", "list", "contact", "--json", "--limit", "1", "--offset", "1"]);
  expect(local).toEqual(remote);
  expect(JSON.parse(local.stdout)).toEqual([
    {
      id: expect.stringMatching(/^ntf_/),
      kind: "notification",
      submissionId: ids[0],
      to: "owner@example.com",
      subject: "First",
      replyTo: null,
      status: "pending",
      attempts: 0,
      lastError: null,
      createdAt: ISO,
      sentAt: null,
      nextAttemptAt: ISO,
      reason: null,
    },
  ]);
});

test("on a terminal: a table with a header, and a hint when there is more", async () => {
  const shown = await world.run("remote", ["notifications", "list", "contact", "--limit", "1"], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" } });
  const lines = shown.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^ID +CREATED +KIND +STATUS +ATTEMPTS +TO +SUBJECT +SUBMISSION +SENT +NEXT TRY +ERROR$/);
  expect(lines.slice(1)).toEqual([expect.stringContaining("pending")]);
  expect(shown.stderr).toBe("More with --offset 1.\n");
});

test("a form without notifications: empty, exit 0; an unknown form: exit 5; a bad --limit: exit 2", async () => {
  expect(await world.run("local", ["notifications", "list", "quiet"])).toEqual({ code: 0, stdout: "", stderr: "" });
  const [local, remote] = await world.both(["notifications", "list", "nope"]);
  expect(local).toEqual({ code: 5, stdout: "", stderr: "formsvc: No form nope.\n" });
  expect(remote).toEqual(local);
  expect(await world.run("remote", ["notifications", "list", "contact", "--limit", "0"])).toEqual({
    code: 2,
    stdout: "",
    stderr: 'formsvc: --limit must be an integer from 1 to 100, not "0".\n',
  });
});
