import { afterAll, beforeAll, expect, test } from "bun:test";
import { makeForm, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.stop());

const today = () => new Date().toISOString().slice(0, 10);

test("forms stats: the same days in both modes, today's posts counted, tab-separated when piped", async () => {
  await makeForm(world, "Charted", "charted");
  await world.post("charted", { email: "a@example.com" });
  await world.post("charted", { email: "b@example.com" });
  const [local, remote] = await world.both(["forms", "stats", "charted", "--since", "2d"]);
  expect(local).toEqual(remote);
  expect(local.code).toBe(0);
  const rows = local.stdout.trimEnd().split("\n");
  expect(rows).toHaveLength(3);
  expect(rows.at(-1)).toBe(`${today()}\t2\t0`);
});

test("forms stats --json prints the API's object; a bad --until is exit 2 naming the flag", async () => {
  await makeForm(world, "Quiet", "quiet");
  const [local, remote] = await world.both(["forms", "stats", "quiet", "--since", today(), "--json"]);
  expect(JSON.parse(local.stdout)).toEqual(JSON.parse(remote.stdout));
  expect(JSON.parse(local.stdout)).toMatchObject({ since: today(), until: today(), days: [{ date: today(), submissions: 0, spam: 0 }] });
  const bad = await world.both(["forms", "stats", "quiet", "--until", "soon"]);
  for (const result of bad) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: expect.stringContaining("--until must be") });
  // Until before since: the API's 400, the same in both modes, with the flag's name.
  const backwards = await world.both(["forms", "stats", "quiet", "--since", "2026-11-02", "--until", "2026-11-01"]);
  expect(backwards[0]).toEqual(backwards[1]);
  expect(backwards[0].stderr).toContain("--since must not be after until");
});
