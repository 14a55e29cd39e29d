import { expect, test } from "bun:test";
import pkg from "../../package.json" with { type: "json" };
import { command, LANES, TIMEOUT_MS } from "../../scripts/test.ts";

// The tests that spawn real processes need more than Bun's default 5 s under load: the timeout must be set
// where Bun reads it, in every `bun test` that npm test runs (scripts/test.ts, and the scripts of package.json).

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

test("npm test's command line carries the timeout where Bun reads it: before the paths", () => {
  const line = command(["./some.test.ts"]);
  expect(line.slice(1)).toEqual(["test", "--timeout", String(TIMEOUT_MS), "./some.test.ts"]);
});
