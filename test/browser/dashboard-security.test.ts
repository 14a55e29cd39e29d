import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { runCli } from "../helpers/cli.ts";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, expectAccessible, OWNER, screenshot, setUp, setupLink, signIn, startDashboard, WAIT } from "./dashboard-support.ts";

// What the dashboard must refuse or render inert, in a real Chromium against a real server.
setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let attacker: ReturnType<typeof Bun.serve>;
let attackerUrl: string;
let browser: BrowserContext;
let page: Page;
let csp: string[];
let form: { id: string; slug: string; name: string };
let attackPage = "";

const HOSTILE = {
  name: "<script>window.__pwned = 'script'</script>",
  photo: "<img src=x onerror=\"window.__pwned = 'onerror'\">",
  website: "javascript:window.__pwned='link'",
  homepage: "https://evil.example/phish",
  "<b>field</b>": "a field name with markup",
};

beforeAll(async () => {
  // Sign-in attempts do not refill during the file, so that the slow-down below counts tries, not the machine's speed.
  dashboard = await startDashboard({ csp: true, args: ["--rate-limit", "0", "--sign-in-rate-scale", "0.0001"] });
  ({ server, browser, page, csp } = dashboard);
  // Same host, another port: another origin, but the same site, so that SameSite=Lax still sends the cookie.
  attacker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(attackPage, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  attackerUrl = `http://127.0.0.1:${attacker.port}`;
  await setUp(page, await setupLink(server));
  await page.getByLabel("Name", { exact: true }).fill("Contact");
  await Promise.all([page.waitForURL(/settings/, WAIT), page.getByRole("button", { name: "Create form" }).click()]);
  const id = new URL(page.url()).pathname.split("/")[3]!;
  const slug = (await page.getByLabel("Slug").inputValue())!;
  form = { id, slug, name: "Contact" };
});

afterAll(async () => {
  attacker?.stop(true);
  await dashboard?.stop();
});

const formCount = () => new Database(server.db, { readonly: true }).query("SELECT count(*) AS n FROM forms").get() as { n: number };

describe("submitted data is text", () => {
  test("a hostile submission shows its markup as text: no script runs, no element is made, no link is clickable", async () => {
    const posted = await fetch(`${server.url}/f/${form.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify(HOSTILE),
    });
    expect(posted.status).toBe(200);
    await page.goto(`${server.url}/dashboard/forms/${form.id}/submissions`);
    expect(await page.locator("ul.inbox .preview").first().textContent()).toBe(`${HOSTILE.name} · ${HOSTILE.photo} · ${HOSTILE.website}`);
    await page.locator("ul.inbox li a").first().click();
    await page.waitForURL(/\/submissions\/sub_/, WAIT);
    const shown = await page
      .locator("dl.data > div")
      .evaluateAll((rows) => rows.map((row) => [row.querySelector("dt")!.textContent, row.querySelector("dd")!.textContent]));
    expect(shown).toEqual(Object.entries(HOSTILE));
    expect(await page.locator("main img, main script, dl.data a, dl.data b").count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned ?? null)).toBeNull();
    await screenshot(page, "hostile-submission");
  });
});

describe("requests from elsewhere", () => {
  test("a cross-origin POST carrying the session cookie is refused, and nothing changes", async () => {
    // The attacker even knows the CSRF token here: only the Origin check stands in the way.
    await page.goto(`${server.url}/dashboard/forms/${form.id}/settings`);
    const csrf = await page.locator("#delete input[name=_csrf]").inputValue();
    attackPage = `<!doctype html><html lang="en"><head><title>Win a prize</title></head><body>
<form id="f" method="post" action="${server.url}/dashboard/forms/${form.id}/delete">
<input name="_csrf" value="${csrf}"><input name="confirm" value="Contact"><button>Claim</button></form></body></html>`;
    await page.goto(attackerUrl);
    await Promise.all([page.waitForURL(`${server.url}/**`, WAIT), page.getByRole("button", { name: "Claim" }).click()]);
    expect(await page.locator("h1").textContent()).toBe("Request refused");
    expect(formCount()).toEqual({ n: 1 });
  });

  test("a same-origin POST without the session's CSRF token is refused, and nothing changes", async () => {
    const answer = await browser.request.post(`${server.url}/dashboard/forms/${form.id}/delete`, {
      form: { confirm: "Contact", _csrf: "x".repeat(32) },
      headers: { origin: server.url },
      maxRedirects: 0,
    });
    expect(answer.status()).toBe(403);
    expect(await answer.text()).toContain("security token does not match");
    const bare = await browser.request.post(`${server.url}/dashboard/forms/${form.id}/delete`, {
      form: { confirm: "Contact" },
      headers: { origin: server.url },
      maxRedirects: 0,
    });
    expect(bare.status()).toBe(403);
    expect(formCount()).toEqual({ n: 1 });
  });

  test("every answer carries the CSP, nosniff and Referrer-Policy headers, pages and assets and errors alike", async () => {
    for (const path of [
      "/dashboard/signin",
      "/dashboard/forms",
      `/dashboard/forms/${form.id}/settings`,
      "/dashboard/assets/dashboard.css",
      "/dashboard/assets/dashboard.js",
      "/dashboard/nowhere",
      "/dashboard/forms/frm_nope/submissions",
    ]) {
      const answer = await browser.request.get(`${server.url}${path}`, { maxRedirects: 0 });
      const headers = answer.headers();
      expect({ path, csp: headers["content-security-policy"], nosniff: headers["x-content-type-options"], referrer: headers["referrer-policy"] }).toEqual({
        path,
        csp: "default-src 'self'; frame-ancestors 'none'",
        nosniff: "nosniff",
        referrer: "same-origin",
      });
    }
  });
});

describe("sessions and links", () => {
  test("the session cookie is HttpOnly, SameSite=Lax, Path=/dashboard", async () => {
    const cookie = (await browser.cookies(`${server.url}/dashboard/forms`)).find((c) => c.name === "formsvc_session")!;
    expect({ httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, path: cookie.path }).toEqual({ httpOnly: true, sameSite: "Lax", path: "/dashboard" });
  });

  test("signed out, a page sends the visitor to sign in, and back to that page after", async () => {
    await page.goto(`${server.url}/dashboard/keys`);
    await Promise.all([page.waitForURL(/signin\?notice=signedout/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
    expect(await page.locator(".notice").textContent()).toBe("You are signed out.");
    await page.goto(`${server.url}/dashboard/keys`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/signin");
    await expectAccessible(page);
    await screenshot(page, "signin");
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await Promise.all([page.waitForURL(`${server.url}/dashboard/keys`, WAIT), page.getByRole("button", { name: "Sign in", exact: true }).click()]);
  });

  test("a session idle for 14 days has expired: the next page is the sign-in", async () => {
    const db = new Database(server.db);
    db.run("UPDATE sessions SET last_seen_at = last_seen_at - 14 * 24 * 3600 * 1000 - 1000");
    db.close();
    await page.goto(`${server.url}/dashboard/forms`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/signin");
    await signIn(page, server.url);
  });

  test("a wrong email and a wrong password get the same answer; many tries are slowed down", async () => {
    await browser.clearCookies();
    const attempt = async (email: string, password: string) => {
      await page.goto(`${server.url}/dashboard/signin`);
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
      await page.waitForSelector(".notice.error", WAIT);
      return page.locator(".notice.error").textContent();
    };
    expect(await attempt("nobody@example.com", OWNER.password)).toBe("Wrong email or password.");
    expect(await attempt(OWNER.email, "not the password")).toBe("Wrong email or password.");
    // Five wrong tries use up an email's burst (right ones are given back, so the sign-ins above took none);
    // nothing refills while this server runs, so the sixth is refused however slow the machine.
    const guesses: (string | null)[] = [];
    for (let i = 0; i < 5; i++) guesses.push(await attempt(OWNER.email, `guess ${i}`));
    expect(guesses).toEqual([...Array(4).fill("Wrong email or password."), expect.stringMatching(/^Too many sign-in attempts\. Try again in \d+ seconds\.$/)]);
  });

  test("a one-time sign-in link signs in once; opened again it is refused", async () => {
    await browser.clearCookies();
    const made = await runCli(["dashboard", "link", "--email", OWNER.email, "--db", server.db]);
    expect(made.code).toBe(0);
    const link = made.stdout.trim();
    expect(link).toStartWith(`${server.url}/dashboard/link?token=`);
    await page.goto(link);
    expect(new URL(page.url()).pathname).toBe("/dashboard/account");
    // Signed in by a link (recovery): a new password needs no current one.
    expect(await page.getByLabel("Current password").count()).toBe(0);
    await browser.clearCookies();
    await page.goto(link);
    expect(await page.locator("h1").textContent()).toBe("Link not valid");
    await page.goto(`${server.url}/dashboard/forms`);
    expect(new URL(page.url()).pathname).toBe("/dashboard/signin");
  });

  test("the setup link is refused once it has made the first user", async () => {
    await page.goto(await setupLink(server));
    expect(await page.locator("h1").textContent()).toBe("Link not valid");
    await expectAccessible(page);
  });

  test("no page broke the Content-Security-Policy", () => {
    expect(csp).toEqual([]);
  });
});
