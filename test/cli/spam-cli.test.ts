import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeForm, MODES, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.stop());

const lines = (stdout: string) =>
  Object.fromEntries(
    stdout
      .trimEnd()
      .split("\n")
      .map((line) => line.split("\t")),
  );

for (const mode of MODES) {
  describe(`spam settings, ${mode} mode`, () => {
    test("forms update sets the ALTCHA captcha, rules from a file and the filter; forms get shows them", async () => {
      const slug = `spam-${mode}`;
      await makeForm(world, "Spam", slug);
      const rules = join(world.server.dir, `rules-${mode}.json`);
      writeFileSync(rules, JSON.stringify({ blockedWords: ["casino"], maxLinks: 2 }));
      const args = ["forms", "update", slug, "--captcha", "altcha", "--captcha-complexity", "500", "--spam-rules-file", rules];
      const updated = await world.run(mode, [...args, "--spam-filter", "false", "--spam-threshold", "0.7"]);
      expect(updated.code).toBe(0);
      expect(lines(updated.stdout)).toMatchObject({
        captcha: "altcha, complexity 500",
        spamRules: '{"blockedWords":["casino"],"maxLinks":2}',
        spamFilter: "off, threshold 0.7",
      });
      const json = JSON.parse((await world.run(mode, ["forms", "get", slug, "--json"])).stdout);
      expect({ captcha: json.captcha, spamRules: json.spamRules, spamFilter: json.spamFilter }).toEqual({
        captcha: { provider: "altcha", complexity: 500 },
        spamRules: { blockedWords: ["casino"], maxLinks: 2 },
        spamFilter: { enabled: false, threshold: 0.7 },
      });
      const cleared = await world.run(mode, ["forms", "update", slug, "--spam-rules-file", "", "--captcha", "none"]);
      expect(lines(cleared.stdout)).toMatchObject({ captcha: "", spamRules: "" });
    });

    test("bad spam settings are refused, naming the flag", async () => {
      const slug = `spam-bad-${mode}`;
      await makeForm(world, "Spam", slug);
      const threshold = await world.run(mode, ["forms", "update", slug, "--spam-threshold", "2"]);
      expect({ code: threshold.code, stderr: threshold.stderr }).toEqual({ code: 2, stderr: expect.stringContaining("--spam-threshold") });
      const missing = await world.run(mode, ["forms", "update", slug, "--spam-rules-file", "/nonexistent/rules.json"]);
      expect({ code: missing.code, stderr: missing.stderr }).toEqual({ code: 2, stderr: expect.stringContaining("cannot read /nonexistent/rules.json") });
      const secret = await world.run(mode, ["forms", "update", slug, "--captcha", "altcha", "--captcha-secret", "x"]);
      expect(secret.code).toBe(2);
    });

    test("submissions list shows why each spam is spam", async () => {
      const slug = `spam-list-${mode}`;
      await makeForm(world, "Spam", slug);
      const rules = join(world.server.dir, `rules-list-${mode}.json`);
      writeFileSync(rules, JSON.stringify({ blockedWords: ["casino"] }));
      expect((await world.run(mode, ["forms", "update", slug, "--spam-rules-file", rules])).code).toBe(0);
      await world.post(slug, { message: "Casino bonus" });
      const listed = await world.run(mode, ["submissions", "list", slug, "--filter", "spam"]);
      expect(listed.stdout).toContain("spam:rule:blocked_words");
    });
  });
}
