import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODES, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.stop());

const ESC = "\x1b[";

for (const mode of MODES) {
  describe(`forms, ${mode} mode`, () => {
    test("create prints the form, with its public address on stderr", async () => {
      const result = await world.run(mode, [
        "forms",
        "create",
        "--name",
        "Contact",
        "--slug",
        `contact-${mode}`,
        "--email",
        "owner@example.com",
        "--domains",
        "Example.com,www.example.com",
      ]);
      expect(result.code).toBe(0);
      const lines = Object.fromEntries(
        result.stdout
          .trimEnd()
          .split("\n")
          .map((line) => line.split("\t")),
      );
      expect(lines).toEqual({
        id: expect.stringMatching(/^frm_/),
        name: "Contact",
        slug: `contact-${mode}`,
        mode: "live",
        isActive: "true",
        submissionCount: "0",
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        updatedAt: lines.createdAt,
        notificationEmail: "owner@example.com",
        redirectUrl: "",
        allowedDomains: "example.com, www.example.com",
        captcha: "",
        submitUrl: `${world.server.url}/f/contact-${mode}`,
        fileUploads: "false",
        retentionDays: "",
        spamRetentionDays: "30",
        fields: "",
        otherFields: "keep",
        page: "off",
        spamRules: "",
        spamFilter: "on, threshold 0.55",
        confirmation: "",
        notificationRoutes: "",
      });
      expect(result.stderr).toBe(`Made form Contact (${lines.id}). It takes submissions at ${world.server.url}/f/contact-${mode}\n`);
    });

    test("get by slug or id, and --json prints the API's object", async () => {
      const json = await world.run(mode, ["forms", "get", `contact-${mode}`, "--json"]);
      expect(json.code).toBe(0);
      const form = JSON.parse(json.stdout);
      expect(form).toMatchObject({
        name: "Contact",
        slug: `contact-${mode}`,
        notificationEmail: "owner@example.com",
        allowedDomains: ["example.com", "www.example.com"],
      });
      const byId = await world.run(mode, ["forms", "get", form.id, "--json"]);
      expect({ code: byId.code, form: JSON.parse(byId.stdout), stderr: byId.stderr }).toEqual({ code: 0, form, stderr: "" });
    });

    test("update changes what is given, and an empty value clears a setting", async () => {
      const result = await world.run(mode, [
        "forms",
        "update",
        `contact-${mode}`,
        "--active",
        "false",
        "--email",
        "",
        "--redirect",
        "https://example.com/thanks",
        "--json",
      ]);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({
        isActive: false,
        notificationEmail: null,
        redirectUrl: "https://example.com/thanks",
        allowedDomains: ["example.com", "www.example.com"],
      });
    });

    test("bad values are one line naming the flag, exit 2", async () => {
      const cases: [string[], string][] = [
        [["forms", "create", "--name", "X", "--email", "not-an-address"], "formsvc: --email must be an email address such as you@example.com.\n"],
        [["forms", "update", `contact-${mode}`, "--active", "maybe"], 'formsvc: --active must be true or false, not "maybe"\n'],
        [
          ["forms", "update", `contact-${mode}`],
          "formsvc: nothing to update: give at least one of --name, --active, --slug, --email, --redirect, --domains, --file-uploads, --retention-days, --spam-retention-days, --captcha, --fields-file, --other-fields, --spam-rules-file, --spam-filter, --spam-threshold, --confirmation-file, --page-file\n",
        ],
        [
          ["forms", "create", "--name", "X", "--redirect", "ftp://example.com"],
          "formsvc: --redirect must be an absolute http(s) URL such as https://example.com/thanks.\n",
        ],
      ];
      for (const [args, stderr] of cases) {
        expect({ args, ...(await world.run(mode, args)) }).toEqual({ args, code: 2, stdout: "", stderr });
      }
    });

    test("--fields-file declares the form's fields from a JSON file; --other-fields says what others become", async () => {
      const file = join(mkdtempSync(join(tmpdir(), "formsvc-fields-")), "fields.json");
      const fields = [{ name: "email", type: "email", required: true }];
      writeFileSync(file, JSON.stringify(fields));
      const updated = await world.run(mode, ["forms", "update", `contact-${mode}`, "--fields-file", file, "--other-fields", "drop", "--json"]);
      expect({ code: updated.code, form: JSON.parse(updated.stdout) }).toMatchObject({ code: 0, form: { fields, otherFields: "drop" } });
      writeFileSync(file, "[{");
      const broken = await world.run(mode, ["forms", "update", `contact-${mode}`, "--fields-file", file]);
      expect({ code: broken.code, stderr: broken.stderr }).toEqual({ code: 2, stderr: expect.stringContaining("--fields-file:") });
      writeFileSync(file, "[]");
      expect(JSON.parse((await world.run(mode, ["forms", "update", `contact-${mode}`, "--fields-file", file, "--json"])).stdout).fields).toEqual([]);
    });

    test("an unknown form is exit 5, a taken slug exit 1", async () => {
      expect(await world.run(mode, ["forms", "get", "no-such-form"])).toEqual({ code: 5, stdout: "", stderr: "formsvc: No form no-such-form.\n" });
      expect(await world.run(mode, ["forms", "create", "--name", "Again", "--slug", `contact-${mode}`])).toEqual({
        code: 1,
        stdout: "",
        stderr: `formsvc: The slug "contact-${mode}" is taken; choose another.\n`,
      });
    });

    test("delete refuses without --yes when stdin is not a terminal, and deletes with it", async () => {
      await world.run(mode, ["forms", "create", "--name", "Doomed", "--slug", `doomed-${mode}`]);
      const refused = await world.run(mode, ["forms", "delete", `doomed-${mode}`], { stdin: "yes\n" });
      expect(refused).toEqual({
        code: 2,
        stdout: "",
        stderr: `formsvc: refusing to delete form doomed-${mode} without --yes: stdin is not a terminal to confirm on\n`,
      });
      const deleted = await world.run(mode, ["forms", "delete", `doomed-${mode}`, "--yes"]);
      expect(deleted.code).toBe(0);
      expect(deleted.stderr).toMatch(/^Deleted form Doomed \(frm_\w+\) and its 0 submissions\.\n$/);
      expect((await world.run(mode, ["forms", "get", `doomed-${mode}`])).code).toBe(5);
    });

    test("delete on a terminal asks for the slug, and a wrong answer deletes nothing", async () => {
      await world.run(mode, ["forms", "create", "--name", "Asked", "--slug", `asked-${mode}`]);
      const tty = { FORMSVC_TTY: "1" };
      const wrong = await world.run(mode, ["forms", "delete", `asked-${mode}`], { env: tty, stdin: "yes\n" });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(
        new RegExp(
          `^Delete form "Asked" \\(frm_\\w+\\) and its 0 submissions\\? This cannot be undone\\.\nType the slug asked-${mode} to confirm: formsvc: form asked-${mode} not deleted: the answer was not its slug\n$`,
        ),
      );
      expect((await world.run(mode, ["forms", "get", `asked-${mode}`])).code).toBe(0);
      const right = await world.run(mode, ["forms", "delete", `asked-${mode}`], { env: tty, stdin: `asked-${mode}\n` });
      expect(right.code).toBe(0);
      expect(right.stderr).toContain("Deleted form Asked");
      expect((await world.run(mode, ["forms", "get", `asked-${mode}`])).code).toBe(5);
    });
  });
}

describe("forms list", () => {
  test("prints the same rows in both modes: tab-separated when piped, newest first", async () => {
    const [local, remote] = await world.both(["forms", "list"]);
    expect(local).toEqual(remote);
    const rows = local.stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.split("\t"));
    expect(rows.map((row) => row.slice(1, 5))).toEqual([
      ["Contact", "contact-remote", "no", "0"],
      ["Contact", "contact-local", "no", "0"],
    ]);
    expect(local.stderr).toBe("");
  });

  test("a table with a header on a terminal, coloured unless NO_COLOR", async () => {
    const coloured = await world.run("remote", ["forms", "list"], { env: { FORMSVC_TTY: "1" } });
    expect(coloured.code).toBe(0);
    expect(coloured.stdout).toContain(`${ESC}1mID`);
    const plain = await world.run("remote", ["forms", "list"], { env: { FORMSVC_TTY: "1", NO_COLOR: "1" } });
    expect(plain.stdout).not.toContain(ESC);
    // FORCE_COLOR=0 turns colour off too, as chalk and most tools read it.
    expect(await world.run("remote", ["forms", "list"], { env: { FORMSVC_TTY: "1", FORCE_COLOR: "0" } })).toEqual(plain);
    const [header, ...rows] = plain.stdout.trimEnd().split("\n");
    expect(header).toMatch(/^ID +NAME +SLUG +ACTIVE +SUBMISSIONS +CREATED$/);
    expect(rows.map((row) => row.split(/ {2,}/).slice(1, 5))).toEqual([
      ["Contact", "contact-remote", "no", "0"],
      ["Contact", "contact-local", "no", "0"],
    ]);
  });

  test("FORCE_COLOR colours piped output; --json is the array of forms", async () => {
    const forced = await world.run("local", ["forms", "list"], { env: { FORCE_COLOR: "1", FORMSVC_TTY: "1" } });
    expect(forced.stdout).toContain(`${ESC}33mno`);
    const json = await world.run("local", ["forms", "list", "--json"]);
    expect(JSON.parse(json.stdout).map((f: { slug: string }) => f.slug)).toEqual(["contact-remote", "contact-local"]);
  });

  test("test mode (--test locally, a test key remotely) sees only its own forms", async () => {
    const made = await world.run("local", ["forms", "create", "--name", "Sandbox", "--slug", "sandbox", "--test", "--json"]);
    expect(JSON.parse(made.stdout).mode).toBe("test");
    const testKey = (await world.run("local", ["keys", "create", "--type", "test", "--test"])).stdout.trim();
    expect(testKey).toMatch(/^sk_test_/);
    const remote = await world.run("remote", ["forms", "list", "--json"], { env: { FORMSVC_KEY: testKey } });
    expect(JSON.parse(remote.stdout).map((f: { slug: string }) => f.slug)).toEqual(["sandbox"]);
    const live = await world.run("local", ["forms", "list", "--json"]);
    expect(JSON.parse(live.stdout).map((f: { slug: string }) => f.slug)).not.toContain("sandbox");
  });
});
