import { expect, test } from "bun:test";
import { loadServeConfig } from "../../src/config.ts";
import { CAPTCHA_VERIFY_URLS } from "../../src/services/spam/captcha.ts";

test("serve's webhook and captcha settings: the documented defaults, flags over the environment", () => {
  expect(loadServeConfig({}, {})).toMatchObject({
    webhooksAllowPrivate: false,
    webhookRetryScale: 1,
    webhookTimeoutMs: 10_000,
    captchaTimeoutMs: 5_000,
    captchaVerifyUrls: CAPTCHA_VERIFY_URLS,
  });
  expect(CAPTCHA_VERIFY_URLS).toEqual({
    recaptcha: "https://www.google.com/recaptcha/api/siteverify",
    hcaptcha: "https://api.hcaptcha.com/siteverify",
    turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
  });
  const config = loadServeConfig(
    { webhooksAllowPrivate: "true", webhookRetryScale: "0.001", captchaVerifyUrls: "turnstile=http://127.0.0.1:9000/v hcaptcha=http://127.0.0.1:9001/" },
    { FORMSVC_WEBHOOK_RETRY_SCALE: "5" },
  );
  expect(config).toMatchObject({
    webhooksAllowPrivate: true,
    webhookRetryScale: 0.001,
    captchaVerifyUrls: { recaptcha: CAPTCHA_VERIFY_URLS.recaptcha, turnstile: "http://127.0.0.1:9000/v", hcaptcha: "http://127.0.0.1:9001" },
  });
  expect(loadServeConfig({}, { FORMSVC_WEBHOOKS_ALLOW_PRIVATE: "1", FORMSVC_CAPTCHA_VERIFY_URLS: "recaptcha=http://127.0.0.1:1/x" })).toMatchObject({
    webhooksAllowPrivate: true,
    captchaVerifyUrls: { recaptcha: "http://127.0.0.1:1/x" },
  });
});

test("bad webhook and captcha settings are refused, naming the flag", () => {
  const cases: [Record<string, string>, string][] = [
    [{ webhookRetryScale: "0" }, "webhook-retry-scale"],
    [{ webhookRetryScale: "fast" }, "webhook-retry-scale"],
    [{ webhookRetryScale: "-1" }, "webhook-retry-scale"],
    [{ captchaVerifyUrls: "friendly=http://127.0.0.1/" }, "captcha-verify-url"],
    [{ captchaVerifyUrls: "turnstile" }, "captcha-verify-url"],
    [{ captchaVerifyUrls: "turnstile=ftp://127.0.0.1/" }, "captcha-verify-url"],
    [{ webhooksAllowPrivate: "maybe" }, "webhooks-allow-private"],
  ];
  for (const [flags, field] of cases) {
    expect(() => loadServeConfig(flags, {})).toThrow(expect.objectContaining({ code: "invalid_parameter", field }));
  }
});
