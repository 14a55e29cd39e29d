import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import { postmarkStandIn, type ProviderStandIn } from "../helpers/mail-providers.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, OWNER, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// The Account page's mail card with an HTTP transport (a Postmark stand-in): the transport shown without its
// token, a test sent to the signed-in admin with Postmark's answer, a refusal in Postmark's words, and the
// last mail sent and the last failure kept.

setDefaultTimeout(90_000);

const TOKEN = "pm-dashboard-token-31f0";
let dashboard: Dashboard;
let server: ServerProcess;
let postmark: ProviderStandIn;
let page: Page;

beforeAll(async () => {
  postmark = postmarkStandIn(TOKEN);
  const args = [
    "--rate-limit",
    "0",
    "--mail-url",
    `postmark://${TOKEN}@?base=${postmark.base}`,
    "--mail-from",
    "Forms <forms@example.com>",
    "--mail-retry-base-ms",
    "1",
  ];
  dashboard = await startDashboard({ args });
  ({ server, page } = dashboard);
});

afterAll(async () => {
  await dashboard?.stop();
  await postmark?.stop();
});

test("the Account page names the transport, sends a test to the admin, and shows the last mail sent and the last failure", async () => {
  await setUp(page, await setupLink(server));
  await page.goto(`${server.url}/dashboard/account`);
  const card = page.locator("section#mail");
  expect(await card.locator(".mail-transport").textContent()).toBe(`postmark://${new URL(postmark.base).host}`);
  expect(await card.locator(".mail-last-sent").textContent()).toBe("Last sent: none yet");

  await Promise.all([page.waitForURL(/\/dashboard\/account\/mail-test$/, WAIT), card.getByRole("button", { name: "Send a test to me" }).click()]);
  const [mail] = await postmark.waitFor(1);
  expect(mail).toMatchObject({ from: "Forms <forms@example.com>", to: [OWNER.email], subject: "formsvc test email" });
  expect(await page.locator("section#mail .mail-test-answer").textContent()).toMatch(/^Test sent to owner@example\.com: Postmark accepted it: b7bc2f4a-/);
  expect(await page.locator("section#mail .mail-last-sent").textContent()).toMatch(/^Last sent: \d{4}-\d\d-\d\dT[\d:.]+Z, test: Postmark accepted it: /);

  const words = "The 'From' address you supplied (forms@example.com) is not a Sender Signature on your account.";
  postmark.script({ status: 422, body: { ErrorCode: 400, Message: words } });
  await page.getByRole("button", { name: "Send a test to me" }).click();
  await page.locator("section#mail .mail-test-answer.error").waitFor(WAIT);
  expect(await page.locator("section#mail .mail-test-answer").textContent()).toBe(`Test not sent: Postmark refused the sender: ${words} (422)`);
  expect(await page.locator("section#mail .mail-last-failure").textContent()).toMatch(
    /^Last failure: .*Z, test: Postmark refused the sender: The 'From' address you supplied \(<address>\) is not a Sender Signature on your account\. \(422\)$/,
  );

  await page.goto(`${server.url}/dashboard/account`);
  expect(await page.locator("section#mail .mail-last-failure").textContent()).toContain("Postmark refused the sender");
  expect(await page.content()).not.toContain(TOKEN);
  expect(postmark.requests.every((request) => request.headers.get("x-postmark-server-token") === TOKEN)).toBe(true);
  expect(server.stderr()).not.toContain(TOKEN);
});

test("an invitation Postmark does not take for now (503) is tried again and arrives once", async () => {
  postmark.script({ status: 503 });
  const before = postmark.mails.length;
  await page.goto(`${server.url}/dashboard/team`);
  await page.getByLabel("Email").fill("ed@example.com");
  await page.getByRole("combobox", { name: "Role" }).selectOption("editor");
  await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
  const url = (await page.locator("#invite-url").textContent())!;
  const mails = await postmark.waitFor(before + 1);
  expect(mails.slice(before).map((mail) => mail.to)).toEqual([["ed@example.com"]]);
  expect(mails.at(-1)!.text).toContain(`\n${url}\n`);
  expect(postmark.requests.at(-2)!.body).toContain("ed@example.com");
});
