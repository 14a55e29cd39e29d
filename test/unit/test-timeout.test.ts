import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { command, LANES, TIMEOUT_MS } from "../../scripts/test.ts";

// The tests that spawn real processes need more than Bun's default 5 s under load: the timeout must be set
// where Bun reads it, in every `bun test` that npm test runs (scripts/test.ts, and the scripts of package.json),
// and Bun must honour it.
const dir = mkdtempSync(join(tmpdir(), "formsvc-timeout-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bunTestRuns = Object.values(pkg.scripts).flatMap((script) =>
  script
    .split("&&")
    .map((part) => part.trim())
    .filter((part) => /\bbun test\b/.test(part)),
);

test("every bun test that npm test runs sets a timeout of at least 30 s", () => {
  expect(pkg.scripts.test).toContain("bun scripts/test.ts");
  expect(LANES.flat().length).toBeGreaterThanOrEqual(3);
  expect(TIMEOUT_MS).toBeGreaterThanOrEqual(30_000);
  expect(bunTestRuns.length).toBeGreaterThanOrEqual(1);
  for (const run of bunTestRuns) expect({ run, timeout: Number(/--timeout[ =](\d+)/.exec(run)?.[1] ?? 5000) >= 30_000 }).toEqual({ run, timeout: true });
});

test("Bun honours it: a test of 5.5 s passes with npm test's flags", async () => {
  writeFileSync(join(dir, "slow.test.ts"), 'import { test } from "bun:test";\ntest("slow", () => Bun.sleep(5500));\n');
  const proc = Bun.spawn(command(["./slow.test.ts"]), { cwd: dir, stdout: "pipe", stderr: "pipe" });
  const output = (await new Response(proc.stderr).text()) + (await new Response(proc.stdout).text());
  expect({ code: await proc.exited, passed: output.includes("1 pass") }).toEqual({ code: 0, passed: true });
}, 20_000);
