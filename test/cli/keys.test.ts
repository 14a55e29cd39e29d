import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runKeysCreate, runKeysList, runKeysRevoke } from "../../cli/keys.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { httpRecorder, jsonAnswer } from "../helpers/http-recorder.ts";

// Each command is its flags and a run(flags, globals, io) function (the GitHub CLI's habit): called here
// directly with a fake Io, piped and on a terminal, on a database file and against a recorded server.

const dir = mkdtempSync(join(tmpdir(), "formsvc-keys-"));
const db = join(dir, "formsvc.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("keys create, piped: the key alone on stdout, what it is on stderr; list shows it; revoke stops it", async () => {
  const made = fakeIo();
  await runKeysCreate({ name: "laptop", permissions: "read,write" }, { db }, made.io);
  expect(made.stdout()).toMatch(/^sk_live_[0-9A-Za-z]{32,}\n$/);
  const id = /^Made live key (key_\w+) \(read, write\)\. It is shown only now: keep it safe\.\n$/.exec(made.stderr())?.[1];
  expect(id).toBeString();

  const piped = fakeIo();
  await runKeysList({ db }, piped.io);
  expect(piped.stdout().split("\t").slice(0, 6)).toEqual([id, "live", expect.stringMatching(/^sk_live_/), "read,write", "", "laptop"]);
  expect(piped.stderr()).toBe("");

  const revoked = fakeIo();
  await runKeysRevoke(id!, { db }, revoked.io);
  expect({ stdout: revoked.stdout(), stderr: revoked.stderr() }).toEqual({ stdout: "", stderr: `Revoked ${id}.\n` });
  const json = fakeIo();
  await runKeysList({ db, json: true }, json.io);
  expect(JSON.parse(json.stdout())).toEqual([expect.objectContaining({ id, name: "laptop", revokedAt: expect.any(String) })]);
});

test("keys list on a terminal: a table with a header, the status coloured unless NO_COLOR", async () => {
  const plain = fakeIo({ tty: true, env: { NO_COLOR: "1" } });
  await runKeysList({ db }, plain.io);
  const [header, row] = plain.stdout().split("\n");
  expect(header).toMatch(/^ID +TYPE +PREFIX +PERMISSIONS +FORM +NAME +CREATED +STATUS$/);
  expect(row).toMatch(/ revoked \d{4}-\d\d-\d\dT[\d:.]+Z$/);
  const coloured = fakeIo({ tty: true });
  await runKeysList({ db }, coloured.io);
  expect(coloured.stdout()).toContain("\x1b[31mrevoked ");
});

test("keys create in remote mode: the declared request, with the flags as its body", async () => {
  const server = httpRecorder();
  const answer = { id: "key_1", key: "fk_recorded", type: "form", permissions: ["read"], formId: "frm_1", name: null, createdAt: "2026-11-22T12:00:00.000Z" };
  server.on("POST", "/api/keys", jsonAnswer(201, answer));
  try {
    const made = fakeIo();
    await runKeysCreate({ type: "form", form: "contact", permissions: "read" }, { url: server.url, key: "sk_live_recorded" }, made.io);
    expect({ stdout: made.stdout(), stderr: made.stderr() }).toEqual({
      stdout: "fk_recorded\n",
      stderr: "Made form key key_1 (read). It is shown only now: keep it safe.\n",
    });
    server.verify();
    expect(server.requests).toEqual([
      {
        method: "POST",
        path: "/api/keys",
        query: {},
        authorization: "Bearer sk_live_recorded",
        contentType: "application/json",
        body: { type: "form", formId: "contact", permissions: ["read"] },
      },
    ]);
  } finally {
    server.stop();
  }
});
