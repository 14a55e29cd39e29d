import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MODES, makeForm, startWorld, type CliWorld } from "./world.ts";

// The confirmation email set from a JSON file, and the unconfirmed submissions of double opt-in listed, in both modes.

let world: CliWorld;
let dir: string;
beforeAll(async () => {
  world = await startWorld();
  dir = mkdtempSync(join(tmpdir(), "formsvc-confirmation-"));
});
afterAll(async () => {
  await world.stop();
  rmSync(dir, { recursive: true, force: true });
});

const SETTING = { enabled: true, subject: "Please confirm", text: "Hello {{name}}, open {{link}}", doubleOptIn: true, optInDays: 3 };

for (const mode of MODES) {
  describe(`confirmation, ${mode} mode`, () => {
    test("forms update --confirmation-file sets it (shown in one line), null removes it, a bad one names the flag", async () => {
      const slug = `letter-${mode}`;
      await makeForm(world, "Letter", slug);
      const file = join(dir, `${mode}.json`);
      writeFileSync(file, JSON.stringify(SETTING));
      const set = await world.run(mode, ["forms", "update", slug, "--confirmation-file", file]);
      expect(set.code).toBe(0);
      expect(set.stdout).toContain("confirmation\tto the email field, double opt-in (3 days)\n");
      const json = JSON.parse((await world.run(mode, ["forms", "get", slug, "--json"])).stdout);
      expect(json.confirmation).toEqual({ ...SETTING, field: "email", fromName: null, replyTo: null, perAddressHours: 24, perFormDaily: 200 });

      writeFileSync(file, JSON.stringify({ ...SETTING, optInDays: 90 }));
      const bad = await world.run(mode, ["forms", "update", slug, "--confirmation-file", file]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain("confirmation.optInDays must be from 1 to 30.");
      writeFileSync(file, "{not json");
      const notJson = await world.run(mode, ["forms", "update", slug, "--confirmation-file", file]);
      expect([notJson.code, notJson.stderr.startsWith("formsvc: --confirmation-file")]).toEqual([2, true]);

      writeFileSync(file, "null");
      const removed = await world.run(mode, ["forms", "update", slug, "--confirmation-file", file, "--json"]);
      expect(JSON.parse(removed.stdout).confirmation).toBeNull();
    });

    test("submissions list --filter unconfirmed shows what waits for its link; the default list leaves it out", async () => {
      const slug = `waiting-${mode}`;
      await makeForm(world, "Waiting", slug);
      const file = join(dir, `${mode}-waiting.json`);
      writeFileSync(file, JSON.stringify(SETTING));
      expect((await world.run(mode, ["forms", "update", slug, "--confirmation-file", file])).code).toBe(0);
      const id = await world.post(slug, { name: "Ann", email: "ann@example.com" });
      const waiting = await world.run(mode, ["submissions", "list", slug, "--filter", "unconfirmed"]);
      expect(waiting.code).toBe(0);
      expect(waiting.stdout.split("\n")[0]!.split("\t").slice(0, 1)).toEqual([id]);
      expect(waiting.stdout).toContain("unread unconfirmed");
      const all = await world.run(mode, ["submissions", "list", slug]);
      expect([all.code, all.stdout]).toEqual([0, ""]);
    });
  });
}
