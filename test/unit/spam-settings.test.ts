import { expect, test } from "bun:test";
import type { Form } from "../../src/domain/types.ts";
import { spamInput, spamUpdate } from "../../src/dashboard/pages/spam-settings.tsx";
import { DEFAULT_FILTER_THRESHOLD } from "../../src/domain/limits.ts";

// The dashboard's spam section saves what the owner changed: a form on the default threshold, saved with the
// threshold as shown, keeps following the default (a later formsvc may change it).
const form = { captcha: null, spamRules: null, spamFilter: { enabled: true, threshold: DEFAULT_FILTER_THRESHOLD } } as unknown as Form;

test("saved as shown, the threshold is not sent; changed, it is, as a number; text the service will refuse is sent as typed", () => {
  const shown = spamInput(form);
  expect(spamUpdate(shown, form).spamFilter).toEqual({ enabled: true });
  expect(spamUpdate({ ...shown, filterEnabled: false }, form).spamFilter).toEqual({ enabled: false });
  expect(spamUpdate({ ...shown, threshold: "0.85" }, form).spamFilter).toEqual({ enabled: true, threshold: 0.85 });
  expect(spamUpdate({ ...shown, threshold: "high" }, form).spamFilter).toEqual({ enabled: true, threshold: "high" });
  expect(spamUpdate({ ...shown, threshold: "" }, form).spamFilter).toEqual({ enabled: true });
});
