import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { flagName, SETTINGS } from "../../src/config-settings.ts";
import { loadServeConfig } from "../../src/config.ts";
import { settingsTable, TABLES, tableIn } from "../../scripts/settings-table.ts";

const root = join(import.meta.dir, "../..");
const settings = Object.values(SETTINGS);
const flags = (testOnly: boolean) => settings.filter((declared) => "testOnly" in declared === testOnly).map((declared) => `--${flagName(declared.flag)}`);

test("the README's settings table and docs/cli.md's table of test settings are the ones src/config-settings.ts declares", () => {
  for (const { file, testOnly } of TABLES) {
    // Run `bun scripts/settings-table.ts` after changing a setting.
    expect({ file, table: tableIn(readFileSync(join(root, file), "utf8")) }).toEqual({ file, table: settingsTable(testOnly) });
  }
  expect(settingsTable(false)).toContain("| `--smtp-url` | `FORMSVC_SMTP_URL` | none: mail is off |");
  expect(settingsTable(false)).not.toContain("FORMSVC_WEBHOOK_RETRY_SCALE");
});

test("serve --help offers every production setting with its variable, and no setting that only tests need", () => {
  const run = Bun.spawnSync([process.execPath, join(root, "cli/formsvc.ts"), "serve", "--help"]);
  // Lines wrap at the terminal width; the words are what count.
  const help = run.stdout.toString().replace(/\s+/g, " ");
  expect(run.exitCode).toBe(0);
  for (const flag of flags(false).filter((flag) => flag !== "--db")) expect(help).toContain(flag);
  expect(help).toContain("(FORMSVC_RATE_LIMIT, default 30)");
  for (const flag of flags(true)) expect(help).not.toContain(flag);
  expect(flags(true)).toContain("--webhook-retry-scale");
});

test("a setting only tests need still works from the environment and from its unlisted flag", () => {
  expect(loadServeConfig({}, { FORMSVC_PURGE_INTERVAL_MS: "100", FORMSVC_CAPTCHA_TIMEOUT_MS: "700" })).toMatchObject({
    purgeIntervalMs: 100,
    captchaTimeoutMs: 700,
  });
  expect(loadServeConfig({ webhookRetryScale: "0.001" }, { FORMSVC_WEBHOOK_RETRY_SCALE: "5" }).webhookRetryScale).toBe(0.001);
  expect(loadServeConfig({}, {})).toMatchObject({ purgeIntervalMs: 3_600_000, webhookRetryScale: 1, host: "0.0.0.0", port: 8080, smtpUrl: null });
});
