import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI } from "../helpers/cli.ts";
import { makeForm, MODES, seedSubmissions, startWorld, type CliWorld } from "./world.ts";

const BIG = 20_000;

let world: CliWorld;
let out: string;
beforeAll(async () => {
  world = await startWorld();
  out = mkdtempSync(join(tmpdir(), "formsvc-export-"));
  seedSubmissions(world.server.db, await makeForm(world, "Big", "big"), BIG);
  await makeForm(world, "Small", "small");
  await world.post("small", { email: "ada@example.com", note: '=HYPERLINK("http://evil.example")' });
  await world.post("small", { email: "bob@example.com", note: "line one\nline \x1b[31mtwo", extra: "+1" });
});
afterAll(async () => {
  await world.stop();
  rmSync(out, { recursive: true, force: true });
});

describe("export of every submission", () => {
  for (const mode of MODES) {
    test(`${mode}: ${BIG.toLocaleString("en-US")} rows as NDJSON and CSV, each exactly once`, async () => {
      const ndjson = await world.run(mode, ["submissions", "export", "big", "--format", "ndjson", "--order", "asc"]);
      expect({ code: ndjson.code, stderr: ndjson.stderr }).toEqual({ code: 0, stderr: "" });
      const lines = ndjson.stdout.trimEnd().split("\n");
      expect(lines).toHaveLength(BIG);
      expect(new Set(lines.map((line) => JSON.parse(line).id)).size).toBe(BIG);
      expect(JSON.parse(lines[BIG - 1]!).data).toEqual({
        email: `user${BIG - 1}@example.com`,
        name: `User ${BIG - 1}`,
        message: `Hello, this is message number ${BIG - 1}, with a comma and "quotes".`,
      });

      const csv = await world.run(mode, ["submissions", "export", "big"]);
      const rows = csv.stdout.trimEnd().split("\n");
      expect(rows[0]).toBe("id,createdAt,email,name,message");
      expect(rows).toHaveLength(BIG + 1);
      expect(rows[1]).toMatch(
        new RegExp(`^sub_\\w+,[^,]+,user${BIG - 1}@example.com,User ${BIG - 1},"Hello, this is message number ${BIG - 1}, with a comma and ""quotes""."$`),
      );
    });
  }

  test("the same bytes in both modes, in every format", async () => {
    for (const format of ["csv", "ndjson", "json"]) {
      const [local, remote] = await world.both(["submissions", "export", "small", "--format", format]);
      expect({ format, ...local }).toEqual({ format, ...remote });
    }
    const json = JSON.parse((await world.run("remote", ["submissions", "export", "small", "--format", "json", "--order", "asc"])).stdout);
    expect(json.map((s: { data: { email: string } }) => s.data.email)).toEqual(["ada@example.com", "bob@example.com"]);
  });

  test("CSV cells that a spreadsheet would run are escaped; on a terminal, control characters are shown, not sent", async () => {
    const piped = await world.run("local", ["submissions", "export", "small", "--order", "asc"]);
    expect(piped.stdout).toBe(
      `id,createdAt,email,note,extra\n` +
        `${JSON.parse((await world.run("local", ["submissions", "list", "small", "--order", "asc", "--json"])).stdout)
          .map((s: { id: string; createdAt: string }, i: number) =>
            i === 0
              ? `${s.id},${s.createdAt},ada@example.com,"'=HYPERLINK(""http://evil.example"")",\n`
              : `${s.id},${s.createdAt},bob@example.com,"line one\nline \x1b[31mtwo",'+1\n`,
          )
          .join("")}`,
    );
    const terminal = await world.run("remote", ["submissions", "export", "small", "--order", "asc"], { env: { FORMSVC_TTY: "1" } });
    expect(terminal.stdout).not.toContain("\x1b");
    expect(terminal.stdout).toContain('"line one\nline \\x1b[31mtwo"');
  });
});

describe("export --output", () => {
  for (const mode of MODES) {
    test(`${mode}: writes the file whole, draws progress on a terminal, and leaves no partial file`, async () => {
      const file = join(out, `big-${mode}.csv`);
      const result = await world.run(mode, ["submissions", "export", "big", "--output", file], { env: { FORMSVC_TTY: "1" } });
      expect(result.code).toBe(0);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain("Exporting ");
      expect(result.stderr).toContain(`/${BIG.toLocaleString("en-US")} (`);
      expect(result.stderr).toMatch(new RegExp(`Exported ${BIG.toLocaleString("en-US")} submissions \\([\\d.]+ MB\\) to ${file}\\.\\n$`));
      expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(BIG + 1);
      expect(readdirSync(out).filter((name) => name.includes("partial"))).toEqual([]);
    });
  }

  test("piped, it is quiet on success; a file that cannot be written is exit 1", async () => {
    const file = join(out, "small.ndjson");
    expect(await world.run("remote", ["submissions", "export", "small", "--format", "ndjson", "--output", file])).toEqual({ code: 0, stdout: "", stderr: "" });
    expect(readFileSync(file, "utf8").trimEnd().split("\n")).toHaveLength(2);
    const nowhere = join(out, "no-such-dir", "x.csv");
    const failed = await world.run("local", ["submissions", "export", "small", "--output", nowhere]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toStartWith(`formsvc: cannot write ${nowhere}: `);
  });

  test("an unknown form or a bad flag creates no file", async () => {
    const file = join(out, "never.csv");
    for (const mode of MODES) {
      expect(await world.run(mode, ["submissions", "export", "nope", "--output", file])).toEqual({ code: 5, stdout: "", stderr: "formsvc: No form nope.\n" });
      expect(await world.run(mode, ["submissions", "export", "big", "--format", "xlsx", "--output", file])).toEqual({
        code: 2,
        stdout: "",
        stderr: 'formsvc: --format must be one of csv, ndjson, json, not "xlsx"\n',
      });
      expect((await world.run(mode, ["submissions", "export", "big", "--since", "last week", "--output", file])).code).toBe(2);
    }
    expect(existsSync(file)).toBe(false);
  });
});

test("remote export is one request to the streamed export endpoint, not a walk through pages", async () => {
  const seen: string[] = [];
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      seen.push(`${request.method} ${url.pathname}${url.search}`);
      return fetch(`${world.server.url}${url.pathname}${url.search}`, { method: request.method, headers: request.headers });
    },
  });
  try {
    const result = await world.run("remote", ["submissions", "export", "big", "--format", "ndjson", "--since", "2020-01-01"], {
      env: { FORMSVC_URL: `http://127.0.0.1:${proxy.port}` },
    });
    expect(result.code).toBe(0);
    expect(result.stdout.trimEnd().split("\n")).toHaveLength(BIG);
    expect(seen).toEqual(["GET /api/forms/big/submissions/export?since=2020-01-01T00%3A00%3A00.000Z&format=ndjson"]);
  } finally {
    proxy.stop(true);
  }
});

test("an export stopped with Ctrl-C exits 130 and leaves no partial file", async () => {
  // A server that sends the header and then nothing more: the export waits, mid-file, until interrupted.
  const stalled = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () =>
      new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("id,createdAt\n")) }), {
        headers: { "content-type": "text/csv" },
      }),
  });
  const dir = mkdtempSync(join(tmpdir(), "formsvc-interrupted-"));
  try {
    const proc = Bun.spawn([process.execPath, CLI, "submissions", "export", "contact", "--output", join(dir, "contact.csv")], {
      env: { PATH: process.env.PATH ?? "", FORMSVC_URL: `http://127.0.0.1:${stalled.port}`, FORMSVC_KEY: "sk_live_x" },
      stdout: "pipe",
      stderr: "pipe",
    });
    while (readdirSync(dir).length === 0) await Bun.sleep(10);
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^\.contact\.csv\.\d+\.partial$/)]);
    proc.kill("SIGINT");
    expect(await proc.exited).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  } finally {
    stalled.stop(true);
    rmSync(dir, { recursive: true, force: true });
  }
});
