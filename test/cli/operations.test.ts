import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runInProcess as runCli } from "../helpers/fake-io.ts";
import { makeForm, MODES, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  world = await startWorld();
  await makeForm(world, "Proto", "proto");
  await world.post("proto", { name: "Ann" });
  const tricky = await fetch(`${world.server.url}/f/proto`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: '{"name":"Bob","toString":"t","constructor":"c","__proto__":"p"}',
  });
  expect(tricky.status).toBe(200);
  await world.post("proto", { name: "Cy" });
});
afterAll(() => world.stop());

describe("fields named like JavaScript's own properties", () => {
  for (const mode of MODES) {
    test(`${mode}: TSV, table and CSV show other rows' cells empty, never an inherited function`, async () => {
      const tsv = await world.run(mode, ["submissions", "list", "proto", "--order", "asc"]);
      expect(tsv.code).toBe(0);
      expect(
        tsv.stdout
          .replace(/\n$/, "")
          .split("\n")
          .map((line) => line.split("\t").slice(3)),
      ).toEqual([
        ["Ann", "", "", ""],
        ["Bob", "t", "c", "p"],
        ["Cy", "", "", ""],
      ]);
      const table = await world.run(mode, ["submissions", "list", "proto", "--order", "asc"], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" } });
      expect(table.stdout.split("\n")[0]).toMatch(/^ID +CREATED +FLAGS +NAME +TOSTRING +CONSTRUCTOR +__PROTO__$/);
      const csv = await world.run(mode, ["submissions", "list", "proto", "--order", "asc", "--format", "csv"]);
      const exported = await world.run(mode, ["submissions", "export", "proto", "--order", "asc"]);
      for (const text of [tsv.stdout, table.stdout, csv.stdout, exported.stdout]) expect(text).not.toContain("native code");
      expect(
        exported.stdout
          .replace(/\n$/, "")
          .split("\n")
          .map((row) => row.split(",").slice(2)),
      ).toEqual([
        ["name", "toString", "constructor", "__proto__"],
        ["Ann", "", "", ""],
        ["Bob", "t", "c", "p"],
        ["Cy", "", "", ""],
      ]);
      expect(csv.stdout).toBe(exported.stdout);
    });
  }
});

describe("keys create follows the mode you act in", () => {
  test("local --test makes a test key; without it, a live key", async () => {
    const test = await world.run("local", ["keys", "create", "--test", "--name", "ci", "--json"]);
    expect(test.code).toBe(0);
    expect(JSON.parse(test.stdout)).toMatchObject({ type: "test", key: expect.stringMatching(/^sk_test_/) });
    const live = await world.run("local", ["keys", "create", "--name", "prod", "--json"]);
    expect(JSON.parse(live.stdout)).toMatchObject({ type: "live", key: expect.stringMatching(/^sk_live_/) });
    // The test key sees test forms only: it is not a live admin key.
    const seen = await runCli(["forms", "list", "--json"], { env: { FORMSVC_URL: world.server.url, FORMSVC_KEY: JSON.parse(test.stdout).key } });
    expect(JSON.parse(seen.stdout)).toEqual([]);
  });

  test("remotely, a test key makes test keys without being told", async () => {
    const testKey = JSON.parse((await world.run("local", ["keys", "create", "--test", "--json"])).stdout).key;
    const made = await runCli(["keys", "create", "--json"], { env: { FORMSVC_URL: world.server.url, FORMSVC_KEY: testKey } });
    expect(JSON.parse(made.stdout)).toMatchObject({ type: "test" });
  });
});

describe("shell completion", () => {
  /** What bash offers after `words` (the last one being completed), from the generated script. */
  async function bashOffers(words: string[]): Promise<string[]> {
    const completion = await runCli(["completion", "bash"]);
    const script = `${completion.stdout}
COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}
_formsvc; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const proc = Bun.spawn(["bash", "-c", script], { stdout: "pipe", stderr: "pipe", env: { PATH: process.env.PATH ?? "" } });
    const [out, err] = [await new Response(proc.stdout).text(), await new Response(proc.stderr).text()];
    expect({ code: await proc.exited, err }).toEqual({ code: 0, err: "" });
    return out.trim().split("\n").filter(Boolean).sort();
  }

  test("bash: commands, subcommands and flags, from the program's own commands", async () => {
    expect(await bashOffers(["formsvc", ""])).toEqual(
      expect.arrayContaining(["serve", "forms", "submissions", "restore", "backup", "completion", "version", "--db"]),
    );
    expect(await bashOffers(["formsvc", "su"])).toEqual(["submissions"]);
    expect(await bashOffers(["formsvc", "--db", "x.db", "forms", ""])).toEqual(expect.arrayContaining(["create", "list", "get", "update", "delete"]));
    expect(await bashOffers(["formsvc", "notifications", "retry", "--p"])).toEqual(["--pending"]);
    expect(await bashOffers(["formsvc", "serve", "--log"])).toEqual(["--log-format"]);
  });

  test("zsh and fish scripts are made from the same commands; an unknown shell is bad usage", async () => {
    const zsh = await runCli(["completion", "zsh"]);
    expect(zsh.stdout).toStartWith("#compdef formsvc\n");
    expect(zsh.stdout).toContain("bashcompinit");
    const fish = await runCli(["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c formsvc -n '__fish_use_subcommand' -a 'restore'");
    expect(fish.stdout).toContain("-l 'pending'");
    for (const [shell, check] of [
      ["zsh", ["zsh", "-n"]],
      ["fish", ["fish", "--no-execute"]],
    ] as const) {
      if (!Bun.which(check[0])) continue; // the syntax check needs the shell itself
      const proc = Bun.spawn([...check, "-c", (shell === "zsh" ? zsh : fish).stdout], { stderr: "pipe" });
      expect({ shell, code: await proc.exited }).toEqual({ shell, code: 0 });
    }
    expect(await runCli(["completion", "tcsh"])).toEqual({ code: 2, stdout: "", stderr: 'formsvc: the shell must be one of bash, zsh, fish, not "tcsh"\n' });
  });
});
