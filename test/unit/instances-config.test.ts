import { expect, test } from "bun:test";
import { loadServeConfig } from "../../src/config.ts";

test("a libSQL server's token comes from FORMSVC_DB_AUTH_TOKEN alone; the mail timeout (and so its lease) from FORMSVC_MAIL_TIMEOUT_MS", () => {
  expect(loadServeConfig({}, {})).toMatchObject({ dbAuthToken: undefined, mailTimeoutMs: 10_000 });
  expect(loadServeConfig({ db: "libsql://forms.example.turso.io" }, { FORMSVC_DB_AUTH_TOKEN: "tok", FORMSVC_MAIL_TIMEOUT_MS: "200" })).toMatchObject({
    db: "libsql://forms.example.turso.io",
    dbAuthToken: "tok",
    mailTimeoutMs: 200,
  });
  expect(() => loadServeConfig({}, { FORMSVC_MAIL_TIMEOUT_MS: "5" })).toThrow("mail-timeout-ms must be a whole number from 100 to 60000");
});
