import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeForm, startWorld, type CliWorld } from "./world.ts";

let world: CliWorld;
beforeAll(async () => {
  // Behind a proxy, as most are, so that the page's visitors come from addresses of their own.
  world = await startWorld({ trustProxy: true });
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
  // No one opened the form's page: no views, and a conversion of "—".
  expect(rows.at(-1)).toBe(`${today()}\t2\t0\t0\t—`);
});

test("forms update --page-file turns the form's page on, forms get shows it; stats count its views and the conversion", async () => {
  await makeForm(world, "Paged", "paged");
  const file = join(world.server.dir, "page.json");
  writeFileSync(file, JSON.stringify({ enabled: true, title: "Write to us", language: "de" }));
  const fields = join(world.server.dir, "fields.json");
  writeFileSync(fields, JSON.stringify([{ name: "email", type: "email", required: true }]));
  await world.ok(["forms", "update", "paged", "--fields-file", fields]);
  const [local, remote] = await world.both(["forms", "update", "paged", "--page-file", file]);
  expect(local.stdout).toEqual(remote.stdout);
  expect(local.stdout).toContain(`page\ton at ${world.server.url}/f/paged, in de`);
  for (const address of ["203.0.113.1", "203.0.113.1", "203.0.113.2", "203.0.113.3", "203.0.113.4"]) {
    await fetch(`${world.server.url}/f/paged`, { headers: { accept: "text/html", "x-forwarded-for": address } });
  }
  await world.post("paged", { email: "a@example.com" });
  const [stats] = await world.both(["forms", "stats", "paged", "--since", "0d"]);
  expect(stats.stdout).toBe(`${today()}\t1\t0\t4\t25%\n`);
  expect(stats.stderr).toBe(`Conversion ${today()} to ${today()}: 25% (1 submissions, 4 views of the form's page)\n`);
  const bad = await world.both(["forms", "update", "paged", "--page-file", fields]);
  for (const result of bad) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 2, stderr: expect.stringContaining("--page-file") });
});

test("the conversion never reads over 100%: a day's submissions count up to its views", async () => {
  await makeForm(world, "Busy", "busy");
  const fields = join(world.server.dir, "fields.json");
  writeFileSync(fields, JSON.stringify([{ name: "email", type: "email", required: true }]));
  await world.ok(["forms", "update", "busy", "--fields-file", fields, "--page-file", join(world.server.dir, "page.json")]);
  await fetch(`${world.server.url}/f/busy`, { headers: { accept: "text/html", "x-forwarded-for": "203.0.113.7" } });
  // One visitor of the page, and three posts from a site's own form.
  for (const email of ["a@example.com", "b@example.com", "c@example.com"]) await world.post("busy", { email });
  const [local, remote] = await world.both(["forms", "stats", "busy", "--since", "0d"]);
  expect(local).toEqual(remote);
  expect(local.stdout).toBe(`${today()}\t3\t0\t1\t100%\n`);
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
