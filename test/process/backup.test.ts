import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../helpers/cli.ts";
import { makeForm, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
let dir: string;
beforeAll(async () => {
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), "formsvc-backup-"));
  await makeForm(world, "Contact", "contact");
});
afterAll(async () => {
  await world.stop();
  rmSync(dir, { recursive: true, force: true });
});

const countIn = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return {
      integrity: (db.prepare("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check,
      submissions: (db.prepare("SELECT count(*) AS n FROM submissions").get() as { n: number }).n,
    };
  } finally {
    db.close();
  }
};

test("backs up a consistent copy while the server keeps taking submissions", async () => {
  let posting = true;
  let posted = 0;
  const poster = (async () => {
    while (posting) {
      await world.post("contact", { email: `p${posted}@example.com`, message: "x".repeat(500) });
      posted++;
    }
  })();
  while (posted < 50) await Bun.sleep(5);

  const copy = join(dir, "during.db");
  const before = posted;
  const result = await world.run("local", ["backup", copy, "--json"]);
  const after = posted;
  posting = false;
  await poster;

  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: "" });
  const report = JSON.parse(result.stdout);
  const inCopy = countIn(copy);
  expect(inCopy.integrity).toBe("ok");
  expect(report).toEqual({
    source: world.server.db,
    path: copy,
    bytes: readFileSync(copy).byteLength,
    forms: 1,
    submissions: inCopy.submissions,
    integrity: "ok",
  });
  // Every submission answered before the backup began is in it; none answered after it ended can be.
  expect(inCopy.submissions).toBeGreaterThanOrEqual(before);
  expect(inCopy.submissions).toBeLessThanOrEqual(after + 1);
  // The server went on: every post was answered 200 and stored.
  expect(countIn(world.server.db).submissions).toBe(posted);
});

test("the copy is a working database: the CLI reads it like the original", async () => {
  const copy = join(dir, "working.db");
  expect((await world.run("local", ["backup", copy])).code).toBe(0);
  const fromCopy = await runCli(["forms", "list", "--json", "--db", copy]);
  const fromOriginal = await runCli(["forms", "list", "--json", "--db", world.server.db]);
  expect(fromCopy).toEqual(fromOriginal);
  expect(JSON.parse(fromCopy.stdout)[0].submissionCount).toBe(countIn(copy).submissions);
});

test("on a terminal it says what it wrote; piped it is quiet", async () => {
  const copy = join(dir, "told.db");
  const told = await world.run("local", ["backup", copy], { env: { FORMSVC_TTY: "1" } });
  expect(told.code).toBe(0);
  expect(told.stdout).toBe("");
  expect(told.stderr).toMatch(new RegExp(`^Backed up ${world.server.db} to ${copy}: 1 forms, [\\d,]+ submissions, [\\d.]+ MB; integrity check ok\\.\\n$`));
  expect(await world.run("local", ["backup", join(dir, "quiet.db")])).toEqual({ code: 0, stdout: "", stderr: "" });
});

test("never overwrites a file, and says when there is no database or nowhere to write", async () => {
  const taken = join(dir, "taken.db");
  writeFileSync(taken, "keep me");
  expect(await world.run("local", ["backup", taken])).toEqual({
    code: 1,
    stdout: "",
    stderr: `formsvc: ${taken} exists already: back up to a new file, so that no good copy is overwritten\n`,
  });
  expect(readFileSync(taken, "utf8")).toBe("keep me");

  const missing = join(dir, "missing.db");
  expect(await runCli(["backup", join(dir, "x.db"), "--db", missing])).toEqual({
    code: 1,
    stdout: "",
    stderr: `formsvc: no database at ${missing}: pass --db PATH or set FORMSVC_DB\n`,
  });
  expect(existsSync(missing)).toBe(false);

  const nowhere = join(dir, "no-such-dir", "copy.db");
  const failed = await world.run("local", ["backup", nowhere]);
  expect({ code: failed.code, stdout: failed.stdout }).toEqual({ code: 1, stdout: "" });
  expect(failed.stderr).toStartWith("formsvc: backup failed: ");
  expect(failed.stderr.split("\n")).toHaveLength(2);
});
