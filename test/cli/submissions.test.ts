import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CLI } from "../helpers/cli.ts";
import { makeForm, MODES, startWorld, type CliWorld, type Mode } from "./world.ts";

let world: CliWorld;
/** The ids of the shared form's submissions, oldest first. */
let ids: string[];
beforeAll(async () => {
  world = await startWorld();
  await makeForm(world, "Survey", "survey");
  ids = [
    await world.post("survey", { email: "ada@example.com", name: "Ada" }),
    await world.post("survey", { email: "grace@example.com", topics: ["cobol", "navy"] }),
    await world.post("survey", { email: "mallory@example.com", name: "\x1b[31mred\x1b[0m\nsecond line" }),
  ];
});
afterAll(() => world.stop());

/** What the rows of the piped (TSV) list of the shared form look like, newest first. */
const TSV_ROWS = () => [
  [ids[2], expect.any(String), "unread", "mallory@example.com", "\\x1b[31mred\\x1b[0m\\nsecond line", ""],
  [ids[1], expect.any(String), "unread", "grace@example.com", "", "cobol, navy"],
  [ids[0], expect.any(String), "unread", "ada@example.com", "Ada", ""],
];
const rowsOf = (stdout: string) =>
  stdout
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => line.split("\t"));

describe("submissions list prints the same in both modes", () => {
  test("piped: tab-separated rows, one column per field, control characters made visible", async () => {
    const [local, remote] = await world.both(["submissions", "list", "survey"]);
    expect(local).toEqual(remote);
    expect(local.code).toBe(0);
    expect(local.stderr).toBe("");
    expect(rowsOf(local.stdout)).toEqual(TSV_ROWS());
  });

  test("`--since 24h --format ndjson | jq -r .data.email` prints the same lines", async () => {
    const outputs = await Promise.all(
      MODES.map(async (mode) => {
        const modeArgs = mode === "local" ? `--db '${world.server.db}'` : `--url '${world.server.url}' --key '${world.key}'`;
        const shell = Bun.spawn(
          ["sh", "-c", `'${process.execPath}' '${CLI}' submissions list survey --since 24h --format ndjson ${modeArgs} | jq -r .data.email`],
          {
            env: { PATH: process.env.PATH ?? "" },
            stdout: "pipe",
            stderr: "pipe",
          },
        );
        return { stdout: await new Response(shell.stdout).text(), stderr: await new Response(shell.stderr).text(), code: await shell.exited };
      }),
    );
    const expected = { stdout: "mallory@example.com\ngrace@example.com\nada@example.com\n", stderr: "", code: 0 };
    expect(outputs).toEqual([expected, expected]);
  });

  test("on a terminal: a coloured table, escapes from the data shown as text, never sent", async () => {
    const [local, remote] = await world.both(["submissions", "list", "survey"], { env: { FORMSVC_TTY: "1" } });
    expect(local).toEqual(remote);
    expect(local.stdout).toContain("\x1b[1mID");
    expect(local.stdout).not.toContain("\x1b[31m");
    const plain = await world.run("remote", ["submissions", "list", "survey"], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" } });
    expect(plain.stdout).not.toContain("\x1b");
    const lines = plain.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +CREATED +FLAGS +EMAIL +NAME +TOPICS$/);
    expect(lines[1]).toContain("mallory@example.com  \\x1b[31mred\\x1b[0m\\nsecond line");
    expect(lines).toHaveLength(4);
  });

  test("--json and --format json print the array of submissions; csv has a header and a column per field", async () => {
    const json = await world.run("remote", ["submissions", "list", "survey", "--json"]);
    const submissions = JSON.parse(json.stdout);
    expect(submissions.map((s: { id: string }) => s.id)).toEqual([...ids].reverse());
    expect(submissions[1]).toEqual({
      id: ids[1],
      data: { email: "grace@example.com", topics: ["cobol", "navy"] },
      createdAt: expect.any(String),
      isRead: false,
      isStarred: false,
      isSpam: false,
      spamReason: null,
    });
    expect((await world.run("local", ["submissions", "list", "survey", "--format", "json"])).stdout).toBe(json.stdout);
    const csv = await world.run("local", ["submissions", "list", "survey", "--format", "csv", "--order", "asc"]);
    expect(csv.stdout.split("\n").slice(0, 3)).toEqual([
      "id,createdAt,email,name,topics",
      expect.stringMatching(new RegExp(`^${ids[0]},.*,ada@example.com,Ada,$`)),
      expect.stringMatching(new RegExp(`^${ids[1]},.*,grace@example.com,,"cobol, navy"$`)),
    ]);
  });

  test("--limit shows one page and says how to get more; --all walks every page", async () => {
    const page = await world.run("local", ["submissions", "list", "survey", "--limit", "2"], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" } });
    expect(page.stdout.trimEnd().split("\n")).toHaveLength(3);
    expect(page.stderr).toBe("Showing 1-2 of 3. More with --offset 2, or all with --all.\n");
    for (const mode of MODES) {
      const all = await world.run(mode, ["submissions", "list", "survey", "--all", "--limit", "1", "--order", "asc", "--format", "ndjson"]);
      expect({
        code: all.code,
        ids: all.stdout
          .trimEnd()
          .split("\n")
          .map((line) => JSON.parse(line).id),
      }).toEqual({ code: 0, ids });
    }
  });

  test("an empty list is exit 0: nothing on stdout, and a word on a terminal", async () => {
    const future = "2999-01-01T00:00:00Z";
    expect(await world.run("remote", ["submissions", "list", "survey", "--since", future])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(await world.run("local", ["submissions", "list", "survey", "--since", future], { env: { FORMSVC_TTY: "1" } })).toEqual({
      code: 0,
      stdout: "",
      stderr: "No submissions.\n",
    });
  });
});

for (const mode of MODES) {
  describe(`one submission, ${mode} mode`, () => {
    let sub: string;
    const slug = `one-${mode}`;
    beforeAll(async () => {
      await makeForm(world, "One", slug);
      sub = await world.post(slug, { email: "x@example.com", message: "=SUM(A1:A9)" });
    });

    test("get prints its flags and each field as data.<name>", async () => {
      const result = await world.run(mode, ["submissions", "get", slug, sub]);
      expect(result).toEqual({
        code: 0,
        stderr: "",
        stdout: `id\t${sub}\ncreatedAt\t${JSON.parse((await world.run(mode, ["submissions", "get", slug, sub, "--json"])).stdout).createdAt}\nisRead\tfalse\nisStarred\tfalse\nisSpam\tfalse\nspamReason\t\ndata.email\tx@example.com\ndata.message\t=SUM(A1:A9)\n`,
      });
    });

    test("mark sets flags, and spam leaves the default list for --filter spam", async () => {
      const marked = await world.run(mode, ["submissions", "mark", slug, sub, "--read", "--star"]);
      expect(marked).toEqual({ code: 0, stdout: "", stderr: `Marked ${sub} read, starred.\n` });
      const starred = await world.run(mode, ["submissions", "list", slug, "--filter", "starred", "--json"]);
      expect(JSON.parse(starred.stdout)).toEqual([expect.objectContaining({ id: sub, isRead: true, isStarred: true, isSpam: false })]);
      await world.run(mode, ["submissions", "mark", slug, sub, "--spam", "--unstar"]);
      expect((await world.run(mode, ["submissions", "list", slug])).stdout).toBe("");
      expect(rowsOf((await world.run(mode, ["submissions", "list", slug, "--filter", "spam"])).stdout)).toEqual([
        [sub, expect.any(String), "spam:owner", "x@example.com", "=SUM(A1:A9)"],
      ]);
    });

    test("mark refuses no flag and contradicting flags, exit 2", async () => {
      expect(await world.run(mode, ["submissions", "mark", slug, sub])).toEqual({
        code: 2,
        stdout: "",
        stderr: "formsvc: nothing to mark: give --read, --unread, --star, --unstar, --spam or --not-spam\n",
      });
      expect(await world.run(mode, ["submissions", "mark", slug, sub, "--spam", "--not-spam"])).toEqual({
        code: 2,
        stdout: "",
        stderr: "formsvc: --spam and --not-spam contradict each other: give one\n",
      });
    });

    test("delete removes it; then it is not found, exit 5", async () => {
      expect(await world.run(mode, ["submissions", "delete", slug, sub])).toEqual({ code: 0, stdout: "", stderr: `Deleted submission ${sub}.\n` });
      expect(await world.run(mode, ["submissions", "get", slug, sub])).toEqual({
        code: 5,
        stdout: "",
        stderr: `formsvc: No submission ${sub} in this form.\n`,
      });
    });
  });
}

describe("bad list input is one line and exit 2, in both modes", () => {
  const cases: [string[], string][] = [
    [
      ["--since", "yesterday"],
      'formsvc: --since must be an ISO 8601 date or date-time (2026-11-22, 2026-11-22T12:00:00Z) or a span back from now (90s, 15m, 24h, 7d), not "yesterday"\n',
    ],
    [["--limit", "0"], 'formsvc: --limit must be an integer from 1 to 100, not "0".\n'],
    [["--limit", "101"], 'formsvc: --limit must be an integer from 1 to 100, not "101".\n'],
    [["--order", "up"], 'formsvc: --order must be asc or desc, not "up".\n'],
    [["--filter", "new"], 'formsvc: --filter must be one of all, unread, starred, spam, unconfirmed, awaiting_payment, not "new".\n'],
    [["--payment", "pending"], 'formsvc: --payment must be one of paid, expired, refunded, not "pending".\n'],
    [["--format", "xml"], 'formsvc: --format must be one of table, tsv, json, ndjson, csv, not "xml"\n'],
  ];
  for (const mode of MODES as Mode[]) {
    test(mode, async () => {
      for (const [flags, stderr] of cases) {
        expect({ flags, ...(await world.run(mode, ["submissions", "list", "survey", ...flags])) }).toEqual({ flags, code: 2, stdout: "", stderr });
      }
    });
  }
});
