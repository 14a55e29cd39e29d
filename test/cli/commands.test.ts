import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrations } from "../../src/db/migrations/index.ts";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { makeForm, MODES, startServerInProcess, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  world = await startWorld();
  await makeForm(world, "Contact", "contact");
});
afterAll(() => world.stop());

describe("keys, in both modes", () => {
  for (const mode of MODES) {
    test(`${mode}: create prints the key alone when piped, list shows it, revoke stops it`, async () => {
      const created = await world.run(mode, ["keys", "create", "--name", `made-${mode}`, "--permissions", "read"]);
      expect(created.code).toBe(0);
      const key = created.stdout.trim();
      expect(created.stdout).toMatch(/^sk_live_[0-9A-Za-z]{32,}\n$/);
      const id = /Made live key (key_\w+) \(read\)\. It is shown only now: keep it safe\.\n$/.exec(created.stderr)?.[1];
      expect(id).toBeString();

      const list = await world.run(mode, ["keys", "list", "--json"]);
      expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ id, name: `made-${mode}`, permissions: ["read"], revokedAt: null }));

      const asReader = { FORMSVC_URL: world.server.url, FORMSVC_KEY: key };
      expect((await runCli(["forms", "list"], { env: asReader })).code).toBe(0);
      expect(await runCli(["forms", "delete", "contact", "--yes"], { env: asReader })).toEqual({
        code: 4,
        stdout: "",
        stderr: "formsvc: This key lacks the delete permission.\n",
      });

      expect(await world.run(mode, ["keys", "revoke", id!])).toEqual({ code: 0, stdout: "", stderr: `Revoked ${id}.\n` });
      expect(await runCli(["forms", "list"], { env: asReader })).toEqual({
        code: 4,
        stdout: "",
        stderr: "formsvc: That API key is not valid or has been revoked.\n",
      });
    });
  }

  test("a form-level key reads its form's submissions and nothing else", async () => {
    const created = await world.run("local", ["keys", "create", "--type", "form", "--form", "contact", "--json"]);
    const made = JSON.parse(created.stdout);
    expect(made).toEqual({
      id: expect.stringMatching(/^key_/),
      key: expect.stringMatching(/^fk_/),
      type: "form",
      permissions: ["read"],
      formId: expect.stringMatching(/^frm_/),
      name: null,
      createdAt: expect.any(String),
    });
    const env = { FORMSVC_URL: world.server.url, FORMSVC_KEY: made.key };
    expect(await runCli(["submissions", "list", "contact"], { env })).toEqual({ code: 0, stdout: "", stderr: "" });
    const refused = await runCli(["forms", "list"], { env });
    expect({ code: refused.code, stdout: refused.stdout }).toEqual({ code: 4, stdout: "" });
    expect(refused.stderr).toStartWith("formsvc: ");
  });
});

describe("accounts and backup work on the database file only", () => {
  test("accounts create and list, locally", async () => {
    const created = await world.run("local", ["accounts", "create", "Acme Ltd", "--json"]);
    expect(JSON.parse(created.stdout)).toEqual({ id: expect.stringMatching(/^acc_/), name: "Acme Ltd", isDefault: false, createdAt: expect.any(String) });
    const list = await world.run("local", ["accounts", "list"]);
    expect(
      list.stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split("\t").slice(1, 3)),
    ).toEqual([
      ["default", "yes"],
      ["Acme Ltd", ""],
    ]);
    const acme = JSON.parse(created.stdout).id;
    expect((await world.run("local", ["forms", "list", "--account", acme])).stdout).toBe("");
    expect(await world.run("local", ["forms", "list", "--account", "acc_nope"])).toEqual({
      code: 5,
      stdout: "",
      stderr: "formsvc: No account acc_nope. See: formsvc accounts list\n",
    });
  });

  test("remote mode refuses them with exit 2", async () => {
    expect(await world.run("remote", ["accounts", "list"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: accounts works on the database file, on the server's machine: run it with --db, without --url or FORMSVC_URL\n",
    });
    expect((await world.run("remote", ["backup", "/tmp/never.db"])).code).toBe(2);
  });
});

describe("bad input and unreachable servers: one line on stderr, the exit code of docs/cli.md", () => {
  test("remote mode without a key, or with a flag that only local mode has", async () => {
    const cases: [string[], string][] = [
      [["forms", "list", "--url", "http://127.0.0.1:9"], "formsvc: remote mode needs an API key: pass --key or set FORMSVC_KEY\n"],
      [
        ["forms", "list", "--url", "http://127.0.0.1:9", "--key", "k", "--account", "acc_x"],
        "formsvc: --account works only in local mode: in remote mode the key decides the account\n",
      ],
      [
        ["forms", "list", "--url", "http://127.0.0.1:9", "--key", "k", "--test"],
        "formsvc: --test works only in local mode: in remote mode use a test key (sk_test_...)\n",
      ],
      [["forms", "list", "--url", "http://127.0.0.1:9", "--db", "x.db"], "formsvc: --db and --url name two different places: give one of them\n"],
      [
        ["forms", "list", "--key", "sk_live_x"],
        "formsvc: --key goes with --url (or FORMSVC_URL): without a server address the command works on the database file\n",
      ],
      [["forms", "list", "--url", "not a url", "--key", "k"], 'formsvc: --url must be an address such as https://forms.example.com, not "not a url"\n'],
    ];
    for (const [args, stderr] of cases) expect({ args, ...(await runCli(args)) }).toEqual({ args, code: 2, stdout: "", stderr });
  });

  test("a server that is not there is named, exit 1", async () => {
    const gone = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const url = `http://127.0.0.1:${gone.port}`;
    gone.stop(true);
    expect(await runCli(["forms", "list"], { env: { FORMSVC_URL: url, FORMSVC_KEY: world.key } })).toEqual({
      code: 1,
      stdout: "",
      stderr: `formsvc: cannot reach the server at ${url} (ECONNREFUSED)\n`,
    });
  });

  test("a wrong key is exit 4; something else on the port answering 404 is exit 5", async () => {
    expect(await runCli(["forms", "list"], { env: { FORMSVC_URL: world.server.url, FORMSVC_KEY: "sk_live_nope" } })).toEqual({
      code: 4,
      stdout: "",
      stderr: "formsvc: That API key is not valid.\n",
    });
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("<h1>Not here</h1>", { status: 404 }) });
    try {
      const url = `http://127.0.0.1:${other.port}`;
      expect(await runCli(["forms", "get", "x", "--url", url, "--key", "k"])).toEqual({
        code: 5,
        stdout: "",
        stderr: `formsvc: the server at ${url} answered 404 Not Found\n`,
      });
    } finally {
      other.stop(true);
    }
  });

  test("a mistyped --db is refused rather than read as an empty database; the commands that make things start one", async () => {
    const dir = mkdtempSync(join(tmpdir(), "formsvc-nodb-"));
    const missing = join(dir, "typo.db");
    for (const args of [
      ["forms", "list"],
      ["submissions", "list", "contact"],
      ["keys", "list"],
      ["accounts", "list"],
    ]) {
      expect({ args, ...(await runCli([...args, "--db", missing])) }).toEqual({
        args,
        code: 1,
        stdout: "",
        stderr: `formsvc: no database at ${missing}: name it with --db (or FORMSVC_DB), or start one with formsvc serve\n`,
      });
    }
    expect(existsSync(missing)).toBe(false);
    const created = await runCli(["keys", "create", "--db", missing]);
    expect(created.code).toBe(0);
    expect(existsSync(missing)).toBe(true);
  });

  test("unknown commands and options, missing arguments: exit 2", async () => {
    expect(await runCli(["frobnicate"])).toEqual({ code: 2, stdout: "", stderr: "formsvc: unknown command 'frobnicate' (see --help)\n" });
    expect(await runCli(["forms", "create", "--db", "/tmp/x.db"])).toEqual({
      code: 2,
      stdout: "",
      stderr: "formsvc: required option '--name <name>' not specified (see --help)\n",
    });
    expect(await runCli(["submissions", "list"])).toEqual({ code: 2, stdout: "", stderr: "formsvc: missing required argument 'form' (see --help)\n" });
    expect(await runCli(["serve", "--port", "http"])).toEqual({
      code: 2,
      stdout: "",
      stderr: 'formsvc: port must be a whole number from 0 to 65535, not "http"\n',
    });
  });
});

describe("help and version", () => {
  const COMMANDS = [
    ["serve"],
    ["accounts"],
    ["keys"],
    ["forms"],
    ["submissions"],
    ["accounts", "create"],
    ["accounts", "list"],
    ["keys", "create"],
    ["keys", "list"],
    ["keys", "revoke"],
    ["forms", "create"],
    ["forms", "list"],
    ["forms", "get"],
    ["forms", "update"],
    ["forms", "delete"],
    ["submissions", "list"],
    ["submissions", "export"],
    ["submissions", "get"],
    ["submissions", "mark"],
    ["submissions", "delete"],
    ["users"],
    ["users", "create"],
    ["users", "list"],
    ["users", "delete"],
    ["users", "role"],
    ["users", "invite"],
    ["activity"],
    ["dashboard"],
    ["dashboard", "link"],
    ["submissions", "files"],
    ["submissions", "erase"],
    ["webhooks"],
    ["webhooks", "add"],
    ["webhooks", "list"],
    ["webhooks", "remove"],
    ["webhooks", "rotate"],
    ["webhooks", "deliveries"],
    ["webhooks", "redeliver"],
    ["pull"],
    ["plan"],
    ["apply"],
    ["mcp"],
    ["backup"],
    ["version"],
  ];

  test("every command's --help shows an example that runs it", async () => {
    const helps = await Promise.all(COMMANDS.map((command) => runCli([...command, "--help"])));
    COMMANDS.forEach((command, i) => {
      const { code, stdout, stderr } = helps[i]!;
      expect({
        command,
        code,
        stderr,
        example: /\nExamples?:\n/.test(stdout) && stdout.split(/\nExamples?:\n/)[1]!.includes(`formsvc ${command.join(" ")}`),
      }).toEqual({ command, code: 0, stderr: "", example: true });
    });
    // Thirty CLI processes at once: on a busy machine that takes more than the default 5 seconds.
  }, 30_000);

  // A command after global options, even a value named like a command, is run by the real binary: test/process/smoke.test.ts.
  test("the top-level help lists every command", async () => {
    const help = await runCli(["--help"]);
    const listed = [
      ...help.stdout
        .split("Commands:")[1]!
        .split("\n\n")[0]!
        .matchAll(/^ {2}(\w+)/gm),
    ].map((m) => m[1]);
    expect(listed).toEqual([
      "serve",
      "accounts",
      "keys",
      "activity",
      "forms",
      "submissions",
      "notifications",
      "webhooks",
      "destinations",
      "pull",
      "plan",
      "apply",
      "mcp",
      "backup",
      "users",
      "dashboard",
      "restore",
      "migrate",
      "version",
      "update",
      "install",
      "completion",
      "help",
    ]);
  });

  test("version prints a development build's version (dev), the commit (dev from a checkout), the runtime and the schema", async () => {
    expect(await runCli(["version"])).toEqual({
      code: 0,
      stdout: `formsvc dev (commit dev, bun ${Bun.version}, ${process.platform}-${process.arch}, schema ${migrations.length})\n`,
      stderr: "",
    });
    // A development build names no release address and trusts no release key: it cannot update itself.
    expect(JSON.parse((await runCli(["version", "--json"])).stdout)).toEqual({
      version: "dev",
      os: process.platform,
      arch: process.arch,
      baseUrl: null,
      releaseKey: null,
      schema: migrations.length,
    });
    expect(await runCli(["--version"])).toEqual({ code: 0, stdout: "dev\n", stderr: "" });
  });
});

describe("local mode shows the addresses the server serves under", () => {
  test("a form's submitUrl is the server's --submit-url, without telling the CLI again", async () => {
    const server = await startServerInProcess({ baseUrl: "https://forms.example.com", submitUrl: "https://submit.example.com/" });
    const { db } = server;
    try {
      const created = await runCli(["forms", "create", "--name", "Contact", "--slug", "contact", "--json", "--db", db]);
      expect(created.code).toBe(0);
      expect(JSON.parse(created.stdout).submitUrl).toBe("https://submit.example.com/f/contact");
      // The environment still wins, for a CLI that must say otherwise.
      const told = await runCli(["forms", "get", "contact", "--json", "--db", db], { env: { FORMSVC_BASE_URL: "https://other.example.com" } });
      expect(JSON.parse(told.stdout).submitUrl).toBe("https://other.example.com/f/contact");
    } finally {
      await server.stop();
    }
  });
});
