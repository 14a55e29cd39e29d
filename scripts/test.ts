// npm test's runs of bun test, two at a time: the browser suites beside the rest, then the storage suites again
// on libSQL or PostgreSQL after the browser suites. Most of a run
// is spent waiting on other processes (Chromium, spawned servers, SMTP and webhook receivers, PostgreSQL), so
// two runs on two cores take little more than the longer one.
// Each run's output is printed whole when it ends, so that the log reads as one run after another.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Bun's default of 5 s is too short for tests that spawn real processes on a loaded machine. */
export const TIMEOUT_MS = 30_000;

const root = join(import.meta.dir, "..");
const unitFiles = readdirSync(join(root, "test/unit"))
  .filter((name) => name.endsWith(".test.ts") || name.endsWith(".test.tsx"))
  .map((name) => `./test/unit/${name}`);
// The test that finds Chromium runs with the browser suites: @sparticuz/chromium unpacks its build on first
// use, and two runs must not unpack it at once.
const BROWSER_FINDER = "./test/unit/browser-finder.test.ts";
/** Unit tests that open a store, and so run again on libSQL. */
const storeUnitFiles = unitFiles.filter(
  (file) => /testApp|openStore|defaultDriver/.test(readFileSync(join(root, file), "utf8")) && !file.endsWith("/postgres-schema.test.ts"),
);

interface Run {
  name: string;
  paths: string[];
  env?: Record<string, string>;
}

/**
 * The API suites that pass on PostgreSQL (embedded, test/helpers/postgres.ts), run again on it; the others are
 * listed in docs/scaling.md ("What is built so far") until they pass too. Each API suite runs on SQLite, and
 * once more on one other engine: these on PostgreSQL, the rest on libSQL, so that the lanes stay short.
 */
const POSTGRES_API = [
  "altcha",
  "bidi-names",
  "dashboard-http",
  "endpoint-page",
  "errors",
  "export",
  "form-page",
  "forms",
  "forms-file",
  "forms-update",
  "keys",
  "multipart-limits",
  "notifications",
  "openapi",
  "pagination",
  "request-id",
  "search",
  "since-polling",
  "spam-rules",
  "stats",
  "submissions",
  "submit-answers",
  "submit-bodies",
  "submit-charsets",
  "submit-clients",
  "submit-edges",
  "submit-fields",
  "submit-hostile",
  "submit-idempotency",
  "submit-origin",
  "submit-rate-limit",
  "team",
  "webhooks",
].map((name) => `./test/api/${name}.test.ts`);
const apiFiles = readdirSync(join(root, "test/api"))
  .filter((name) => name.endsWith(".test.ts"))
  .map((name) => `./test/api/${name}`);
const libsqlApi = apiFiles.filter((file) => !POSTGRES_API.includes(file));

/** The runs of bun test, as lanes: the runs of a lane one after another, the lanes side by side. */
export const LANES: Run[][] = [
  [
    { name: "browser", paths: ["./test/browser", BROWSER_FINDER] },
    { name: "libSQL", paths: [...libsqlApi, ...storeUnitFiles], env: { FORMSVC_TEST_DRIVER: "libsql" } },
    { name: "PostgreSQL", paths: POSTGRES_API, env: { FORMSVC_TEST_DRIVER: "postgres" } },
  ],
  [{ name: "api, cli, process and unit", paths: ["./test/api", "./test/cli", "./test/process", ...unitFiles.filter((file) => file !== BROWSER_FINDER)] }],
];

/** The command line of a run: bun test with the timeout, then its paths. */
export const command = (paths: string[]): string[] => [process.execPath, "test", "--timeout", String(TIMEOUT_MS), ...paths];

/** Runs one bun test, its output held until it ends; true when it passed. */
async function run({ name, paths, env }: Run): Promise<boolean> {
  const started = performance.now();
  const proc = Bun.spawn(command(paths), {
    cwd: root,
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  // Written whole, and waited for: a pipe (npm test | tee) takes a large output in several writes.
  await Bun.write(Bun.stdout, `\n=== bun test: ${name} (${seconds} s, exit ${code}) ===\n${out}${err}`);
  return code === 0;
}

if (import.meta.main) {
  const outcomes = await Promise.all(
    LANES.map(async (lane) => {
      let passed = true;
      for (const step of lane) passed = (await run(step)) && passed;
      return passed;
    }),
  );
  // exitCode, not exit(): the process ends when the output is written.
  process.exitCode = outcomes.every(Boolean) ? 0 : 1;
}
