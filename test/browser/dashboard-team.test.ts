import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, csrfOf, type Dashboard, OWNER, setUp, setupLink, signIn, startDashboard, WAIT } from "./dashboard-support.ts";

// A team in a real Chromium against a real `formsvc serve`: the owner invites an editor and a viewer by
// one-time links; each can do what the role allows and no more, checked on the server even for a forged
// post; the owner reads all of it in the activity log.

// Each step drives several pages and runs axe at two widths, on a machine shared with other work.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let formPath = "";
const links = { editor: "", viewer: "" };
const PASSWORD = "a long enough password";

beforeAll(async () => {
  dashboard = await startDashboard();
  ({ server, page } = dashboard);
});

afterAll(async () => {
  await dashboard?.stop();
});

/** Invites `email` as `role` from the team page; answers the link the page shows once. */
async function invite(email: string, role: string, forms: string[] = []): Promise<string> {
  await page.getByLabel("Email").fill(email);
  await page.getByRole("combobox", { name: "Role" }).selectOption(role);
  for (const name of forms) await page.getByRole("checkbox", { name }).check();
  await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
  return (await page.locator("#invite-url").textContent())!;
}

/** Signs out through the header's button. */
async function signOut(): Promise<void> {
  await Promise.all([page.waitForURL(/\/dashboard\/signin/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
}

/** Opens an invitation link (signed out), chooses a password, and lands on the forms. */
async function join(link: string): Promise<void> {
  await page.goto(link);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByLabel("Password again").fill(PASSWORD);
  await Promise.all([page.waitForURL(/\/dashboard\/forms$/, WAIT), page.getByRole("button", { name: "Join and sign in" }).click()]);
}

/** A post made by hand with the session's own cookie and CSRF token, from the right origin: only the role stands in its way. */
async function forge(path: string, form: Record<string, string>): Promise<{ status: number; text: string }> {
  const answer = await page.request.post(`${server.url}${path}`, {
    form: { _csrf: await csrfOf(page), ...form },
    headers: { origin: server.url },
    maxRedirects: 0,
  });
  return { status: answer.status(), text: await answer.text() };
}

describe("a team: owner, editor, viewer", () => {
  test("the owner invites an editor and a viewer; each link is shown once, after the redirect", async () => {
    // Before any user exists, the first page of the dashboard says how to make one.
    await page.goto(`${server.url}/dashboard`);
    expect(await page.locator("#setup-hint").textContent()).toContain(
      "No user yet. The first one is made with the one-time setup link that formsvc serve printed",
    );
    await checkBothWidths(page, "signin-first");
    await setUp(page, await setupLink(server));
    await page.getByLabel("Name", { exact: true }).fill("Contact");
    await page.getByLabel("Slug (optional)").fill("contact");
    await Promise.all([page.waitForURL(/\/settings\?notice=created&at=snippet#snippet$/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
    formPath = new URL(page.url()).pathname.replace(/\/settings$/, "");
    const posted = await fetch(`${server.url}/f/contact`, {
      method: "POST",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: '{"email":"ann@example.com"}',
    });
    expect(posted.status).toBe(200);

    await page.getByRole("link", { name: "Team" }).click();
    expect(await page.locator("#members-title + .table-wrap tbody tr").allInnerTexts()).toEqual([
      expect.stringMatching(/^owner@example\.com\s+owner\s+every form\s+.+\s+you$/),
    ]);
    expect(await page.locator("#invite .mail-off").textContent()).toStartWith(
      "Mail is off: Invitations are not mailed. To turn it on, start the server with --mail-url",
    );
    links.editor = await invite("ed@example.com", "editor");
    expect(links.editor).toMatch(new RegExp(`^${server.url}/dashboard/invite\\?token=[0-9A-Za-z]{43}$`));
    await checkBothWidths(page, "team");
    await page.reload();
    expect(await page.locator("#invite-url").count()).toBe(0);
    links.viewer = await invite("vi@example.com", "viewer", ["Contact (live)"]);
    expect(await page.locator("#pending-title + .table-wrap tbody tr td:first-child").allTextContents()).toEqual(["ed@example.com", "vi@example.com"]);
  });

  test("the viewer joins and reads, and is refused on the server even with a forged post", async () => {
    await signOut();
    await page.goto(links.viewer);
    await checkBothWidths(page, "invitation");
    await join(links.viewer);
    expect(await page.getByRole("link", { name: "Team" }).count()).toBe(0);
    expect(await page.getByRole("link", { name: "API keys" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Create a form" }).count()).toBe(0);
    expect(await page.locator("tbody tr td:first-child").allTextContents()).toEqual(["Contact"]);

    await page.goto(`${server.url}${formPath}/settings`);
    const renamed = await forge(`${formPath}/settings`, { name: "Taken over", slug: "contact", isActive: "true" });
    expect(renamed.status).toBe(403);
    expect(renamed.text).toContain("Your role in this account, viewer, does not allow this: it needs an editor, admin or owner.");
    const deleted = await forge(`${formPath}/delete`, { confirm: "Contact" });
    expect(deleted.status).toBe(403);
    const invited = await forge("/dashboard/team/invite", { email: "mallory@example.com", role: "owner" });
    expect(invited.status).toBe(403);
    expect((await page.goto(`${server.url}/dashboard/keys`))!.status()).toBe(403);
    expect((await page.goto(`${server.url}/dashboard/activity`))!.status()).toBe(403);
    await checkBothWidths(page, "refused");

    await page.goto(`${server.url}${formPath}/settings`);
    // The settings read as text: a viewer is given no input to change them.
    expect(await page.locator("section#general dd").first().textContent()).toBe("Contact");
    expect(await page.locator("main form").count()).toBe(0);
    await page.goto(`${server.url}${formPath}/submissions`);
    expect(await page.locator("ul.inbox li .preview").allTextContents()).toEqual(["ann@example.com"]);
  });

  test("the editor changes forms and submissions, but not the team", async () => {
    await signOut();
    await join(links.editor);
    await page.goto(`${server.url}${formPath}/settings`);
    await page.getByLabel("Name", { exact: true }).fill("Contact us");
    await Promise.all([page.waitForURL(/notice=saved&at=general#general$/, WAIT), page.getByRole("button", { name: "Save settings" }).click()]);
    await page.goto(`${server.url}${formPath}/submissions`);
    await page.locator("ul.inbox li input[type=checkbox]").first().check();
    await Promise.all([page.waitForURL(/\/submissions$/, WAIT), page.getByRole("button", { name: "Star", exact: true }).click()]);
    expect(await page.locator("ul.inbox li .star").first().textContent()).toContain("★");
    expect((await page.goto(`${server.url}/dashboard/team`))!.status()).toBe(403);
    expect((await forge("/dashboard/team/invite", { email: "x@example.com", role: "viewer" })).status).toBe(403);
  });

  test("the owner changes a role and removes a member; the activity log shows who did each thing", async () => {
    await signOut();
    await signIn(page, server.url, OWNER);
    await page.goto(`${server.url}/dashboard/team`);
    await page.getByRole("link", { name: "Change vi@example.com" }).click();
    await page.getByRole("combobox", { name: "Role" }).selectOption("editor");
    await checkBothWidths(page, "team-member");
    await Promise.all([page.waitForURL(/notice=role$/, WAIT), page.getByRole("button", { name: "Save role" }).click()]);
    expect(await page.locator(".notice").textContent()).toBe("Role saved.");
    await page.getByRole("link", { name: "Change ed@example.com" }).click();
    page.once("dialog", (dialog) => void dialog.accept());
    await Promise.all([page.waitForURL(/notice=removed$/, WAIT), page.getByRole("button", { name: "Remove ed@example.com" }).click()]);

    await page.getByRole("link", { name: "Activity" }).click();
    const rows = await page.locator("tbody tr .summary").allTextContents();
    expect(rows).toEqual([
      "owner@example.com removed editor ed@example.com.",
      "owner@example.com made vi@example.com editor on 1 form (was viewer).",
      'ed@example.com marked 1 submission of "Contact us" star.',
      'ed@example.com changed "Contact": name "Contact us".',
      "ed@example.com joined as editor, invited by owner@example.com.",
      "vi@example.com joined as viewer, invited by owner@example.com.",
      "owner@example.com invited vi@example.com as viewer on 1 form.",
      "owner@example.com invited ed@example.com as editor.",
      'owner@example.com created live form "Contact".',
      "owner@example.com set up the first user, owner@example.com, as owner.",
    ]);
    await checkBothWidths(page, "activity");
  });
});
