import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// The Destinations section in a real Chromium against a real server: an ntfy destination added from its own
// form, its token never shown again, a test sent, a submission delivered, a failing one explained and sent again.
// The test drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(150_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let vendors: Vendors;

beforeAll(async () => {
  vendors = startVendors();
  // Retries on a stretched schedule (the first 500 s after a failure): the failed delivery is sent again by the
  // page's button only, never also by a retry that a shrunk schedule would fire while the page is used.
  dashboard = await startDashboard({ args: ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-retry-scale", "100"] });
  ({ server, page } = dashboard);
});

afterAll(async () => {
  vendors?.stop();
  await dashboard?.stop();
});

const section = () => page.locator("section#destinations");
/** The settings page of the form the first test makes. */
let settingsUrl = "";

test("add from the type's form, test, a post delivered; a refused token explained, fixed by a new one and sent again", async () => {
  await setUp(page, await setupLink(server));
  await page.getByLabel("Name", { exact: true }).fill("Leads");
  await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
  const submitUrl = (await page.locator("#submit-url").textContent())!;
  settingsUrl = page.url().replace(/[?#].*$/, "");

  await section().getByText("ntfy", { exact: true }).click();
  await section().getByLabel("Topic", { exact: true }).fill(VENDOR.ntfy.topic);
  await section().getByLabel("Access token (optional)").fill("tk_wrong");
  await section().getByLabel("Server (optional, default https://ntfy.sh)").fill(vendors.url);
  await Promise.all([page.waitForURL(/notice=saved&at=destinations#destinations$/, WAIT), section().getByRole("button", { name: "Add ntfy" }).click()]);
  expect(await page.content()).not.toContain("tk_wrong");
  expect(await section().locator("table").first().textContent()).toContain(`topic: ${VENDOR.ntfy.topic}`);

  await Promise.all([page.waitForURL(/#destinations$/, WAIT), section().getByRole("button", { name: "Send a test to the ntfy destination" }).click()]);
  expect(await section().locator(".notice.error").textContent()).toBe(`The test was refused: ntfy refused the token on topic ${VENDOR.ntfy.topic} (403).`);

  const posted = await fetch(submitUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ name: "Ann" }),
  });
  expect(posted.status).toBe(200);
  // The sender works beside the page: it is loaded again until the delivery's first attempt shows.
  const deliveries = section().getByRole("region", { name: "Deliveries to destinations" });
  const deadline = Date.now() + 15_000;
  for (;;) {
    // A reload: going to the same address with only a new #fragment would not ask the server again.
    await page.reload();
    if ((await deliveries.count()) > 0 && (await deliveries.textContent())!.includes("ntfy refused the token")) break;
    if (Date.now() > deadline) throw new Error(`no failed delivery shown: ${await section().textContent()}`);
    await Bun.sleep(100);
  }
  await checkBothWidths(page, "settings-destinations");

  // The token is changed in the destination's own form: the topic and server are shown as saved, the token
  // field is empty (left so, the saved one would be kept); the delivery is sent again from here.
  const edit = section().locator("details", { hasText: "Change the ntfy destination" });
  await edit.locator("summary").click();
  expect(await edit.getByLabel("Topic", { exact: true }).inputValue()).toBe(VENDOR.ntfy.topic);
  expect(await edit.getByLabel("Access token (optional): empty keeps the one saved").inputValue()).toBe("");
  await edit.getByLabel("Access token (optional): empty keeps the one saved").fill(VENDOR.ntfy.token);
  await Promise.all([
    page.waitForURL(/notice=saved&at=destinations#destinations$/, WAIT),
    edit.getByRole("button", { name: "Save the ntfy destination" }).click(),
  ]);
  expect(await page.content()).not.toContain(VENDOR.ntfy.token);
  await Promise.all([
    page.waitForURL(/notice=redelivered&at=destinations#destinations$/, WAIT),
    section()
      .getByRole("button", { name: /^Send again the delivery of / })
      .first()
      .click(),
  ]);
  await vendors.waitFor("ntfy", 1);
  expect(vendors.accepted.ntfy.map((n) => n.message)).toEqual(["name: Ann"]);

  // Saved again with the token left empty: the saved token is kept, and the next post is delivered with it.
  await section().locator("details", { hasText: "Change the ntfy destination" }).locator("summary").click();
  await Promise.all([
    page.waitForURL(/notice=saved&at=destinations#destinations$/, WAIT),
    section().getByRole("button", { name: "Save the ntfy destination" }).click(),
  ]);
  const again = await fetch(submitUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json" },
    body: JSON.stringify({ name: "Bo" }),
  });
  expect(again.status).toBe(200);
  await vendors.waitFor("ntfy", 2);
  expect(vendors.accepted.ntfy.map((n) => n.message)).toEqual(["name: Ann", "name: Bo"]);
});

test("a refused add keeps what was typed but the secret; moving a destination's server without its token is refused beside the token", async () => {
  await page.goto(settingsUrl);
  const add = section().locator("details", { has: page.locator('input[name="type"][value="ntfy"]') });
  await add.locator("summary").click();
  await add.getByLabel("Topic", { exact: true }).fill("not a topic!");
  await add.getByLabel("Access token (optional)").fill("tk_typed_secret");
  await add.getByLabel("Server (optional, default https://ntfy.sh)").fill(vendors.url);
  await add.getByLabel("Fields (optional JSON", { exact: false }).fill('{"name": "Name"}');
  // Conditions are rows: a field, a test, a value (one per line for "is one of").
  await add.getByLabel("Condition 1: field").fill("topic");
  await add.getByLabel("Condition 1: test").selectOption("in");
  await add.getByLabel("Condition 1: value").fill("sales\nsupport");
  const [refused] = await Promise.all([page.waitForResponse((r) => r.request().method() === "POST"), add.getByRole("button", { name: "Add ntfy" }).click()]);
  expect(refused.status()).toBe(400);
  const again = section().locator("details", { has: page.locator('input[name="type"][value="ntfy"]') });
  expect({
    topic: await again.getByLabel("Topic", { exact: true }).inputValue(),
    token: await again.getByLabel("Access token (optional)").inputValue(),
    server: await again.getByLabel("Server (optional, default https://ntfy.sh)").inputValue(),
    fields: await again.getByLabel("Fields (optional JSON", { exact: false }).inputValue(),
    when: [
      await again.getByLabel("Condition 1: field").inputValue(),
      await again.getByLabel("Condition 1: test").inputValue(),
      await again.getByLabel("Condition 1: value").inputValue(),
    ],
    error: await again.locator(".field.has-error .error").textContent(),
  }).toEqual({
    topic: "not a topic!",
    token: "",
    server: vendors.url,
    fields: '{"name": "Name"}',
    when: ["topic", "in", "sales\nsupport"],
    error: "config.topic must be letters, digits, - and _ only.",
  });
  expect(await page.content()).not.toContain("tk_typed_secret");

  // The saved destination's server moved with its token left empty: refused, the message beside the token.
  const edit = section().locator("details", { hasText: "Change the ntfy destination" });
  await edit.locator("summary").click();
  await edit.getByLabel("Server (optional, default https://ntfy.sh)").fill("http://127.0.0.1:9");
  const [moved] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === "POST"),
    edit.getByRole("button", { name: "Save the ntfy destination" }).click(),
  ]);
  expect(moved.status()).toBe(400);
  const shown = section().locator("details", { hasText: "Change the ntfy destination" });
  expect({
    server: await shown.getByLabel("Server (optional, default https://ntfy.sh)").inputValue(),
    error: await shown.locator(".field.has-error").textContent(),
  }).toEqual({
    server: "http://127.0.0.1:9",
    error: expect.stringContaining("config.token is required again when config.baseUrl changes"),
  });
  expect(await section().locator("table").first().textContent()).toContain(`baseUrl: ${vendors.url}`);

  // The refused add, fixed: its conditions are saved as the rows said, and its own form shows them as rows.
  const fixed = section().locator("details", { has: page.locator('input[name="type"][value="ntfy"]') });
  await fixed.locator("summary").click();
  await fixed.getByLabel("Topic", { exact: true }).fill("second-topic");
  await fixed.getByLabel("Condition 1: field").fill("topic");
  await fixed.getByLabel("Condition 1: test").selectOption("in");
  await fixed.getByLabel("Condition 1: value").fill("sales\nsupport");
  await Promise.all([page.waitForURL(/notice=saved&at=destinations#destinations$/, WAIT), fixed.getByRole("button", { name: "Add ntfy" }).click()]);
  const second = section().locator("details", { hasText: "topic: second-topic" });
  await second.locator("summary").click();
  expect([
    await second.getByLabel("Condition 1: field").inputValue(),
    await second.getByLabel("Condition 1: test").inputValue(),
    await second.getByLabel("Condition 1: value").inputValue(),
    await second.getByLabel("Condition 2: field").inputValue(),
  ]).toEqual(["topic", "in", "sales\nsupport", ""]);
});
