import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import Provider from "oidc-provider";
import type { Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { type Dashboard, OWNER, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Single sign-on in a real Chromium against a real `formsvc serve` and a real OpenID provider (oidc-provider)
// started here, with password sign-in off: a member signs in, an invited person joins on the way, a stranger
// is told they have no account (and none is made), and an answer whose state was tampered with is refused.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let idp: Server;
/** While true, the provider's redirects back to formsvc carry another state than the one formsvc sent. */
let tamper = false;
const CLIENT = { id: "formsvc-dashboard", secret: "a-client-secret-of-enough-length-0123456789" };

beforeAll(async () => {
  idp = createServer();
  // On every loopback address, named localhost: the provider's cookies (its own sign-in) are then not formsvc's,
  // which lives at 127.0.0.1, and can be cleared between people.
  await new Promise<void>((resolve) => idp.listen(0, resolve));
  const issuer = `http://localhost:${(idp.address() as AddressInfo).port}`;
  dashboard = await startDashboard({
    csp: true,
    args: [
      "--rate-limit",
      "0",
      "--password-signin",
      "false",
      "--oidc-issuer",
      issuer,
      "--oidc-name",
      "Test IdP",
      "--oidc-client-id",
      CLIENT.id,
      "--oidc-client-secret",
      CLIENT.secret,
    ],
  });
  ({ server, page } = dashboard);
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [`${server.url}/dashboard/oidc/callback`],
        token_endpoint_auth_method: "client_secret_basic",
      },
    ],
    // The login the provider's page is given is the person's email; "unverified…" ones are not vouched for.
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub, email: sub, email_verified: !sub.startsWith("unverified") }) }),
    claims: { openid: ["sub"], email: ["email", "email_verified"] },
    pkce: { required: () => true },
    // formsvc is this provider's own first-party client: no consent page, as a company's provider is usually set up.
    loadExistingGrant: async (ctx) => {
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId: ctx.oidc.session!.accountId! });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
    cookies: { keys: ["a cookie key for the test provider"] },
  });
  // The way back to formsvc passes here: a test may change its state on the way, as someone in between could.
  const handle = provider.callback();
  idp.on("request", (req, res) => {
    if (tamper) {
      const setHeader = res.setHeader.bind(res);
      res.setHeader = (name: string, value: number | string | readonly string[]) => {
        if (name.toLowerCase() === "location" && String(value).includes("/dashboard/oidc/callback")) {
          const url = new URL(String(value));
          url.searchParams.set("state", "tampered-state");
          return setHeader(name, url.href);
        }
        return setHeader(name, value);
      };
    }
    handle(req, res);
  });
  await setUp(page, await setupLink(server));
});

afterAll(async () => {
  await dashboard?.stop();
  idp?.close();
});

/** Signs out through the header's button. */
async function signOut(): Promise<void> {
  await Promise.all([page.waitForURL(/\/dashboard\/signin/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
}

/** Presses "Sign in with Test IdP" and signs in at the provider as `email`; waits for where formsvc sends the browser. */
async function viaProvider(email: string, to: RegExp): Promise<void> {
  await page.context().clearCookies({ domain: "localhost" });
  await page.goto(`${server.url}/dashboard/signin`);
  await Promise.all([page.waitForURL(/\/interaction\//, WAIT), page.getByRole("link", { name: "Sign in with Test IdP" }).click()]);
  await page.locator('input[name="login"]').fill(email);
  await page.locator('input[name="password"]').fill("anything");
  await Promise.all([page.waitForURL(to, WAIT), page.getByRole("button", { name: "Sign-in" }).click()]);
}

/** The roles of the users with this email in the server's database (none: no user was made). */
const userRoles = (email: string) => {
  const db = new Database(server.db, { readonly: true });
  try {
    return (db.query("SELECT role FROM users WHERE email = ?").all(email) as { role: string }[]).map((r) => r.role);
  } finally {
    db.close();
  }
};

describe("single sign-on", () => {
  test("with password sign-in off, the sign-in page offers the provider and a passkey, and a posted password is refused", async () => {
    await signOut();
    await page.getByRole("link", { name: "Sign in with Test IdP" }).waitFor(WAIT);
    expect(await page.getByLabel("Password").count()).toBe(0);
    const presession = (await page.locator('input[name="_presession"]').first().getAttribute("value"))!;
    const posted = await page.request.post(`${server.url}/dashboard/signin`, {
      form: { _presession: presession, email: OWNER.email, password: OWNER.password },
      headers: { origin: server.url },
      maxRedirects: 0,
    });
    expect(posted.status()).toBe(403);
    expect(await posted.text()).toContain("Password sign-in is off");
  });

  test("a member signs in through the provider, by verified email", async () => {
    await viaProvider(OWNER.email, /\/dashboard\/forms$/);
    await page.goto(`${server.url}/dashboard/activity`);
    await page.getByText("Signed in through Test IdP.").waitFor(WAIT);
  });

  test("a person with a pending invitation joins with its role; nobody else is made", async () => {
    await page.goto(`${server.url}/dashboard/team`);
    await page.getByLabel("Email").fill("newbie@example.com");
    await page.getByRole("combobox", { name: "Role" }).selectOption("editor");
    await Promise.all([page.waitForURL(/\/dashboard\/team$/, WAIT), page.getByRole("button", { name: "Invite" }).click()]);
    await signOut();
    await viaProvider("newbie@example.com", /\/dashboard\/forms$/);
    expect(userRoles("newbie@example.com")).toEqual(["editor"]);
    await page.goto(`${server.url}/dashboard/account`);
    await page.getByRole("heading", { name: "Signed in as newbie@example.com" }).waitFor(WAIT);
    await signOut();
  });

  test("an unknown email is told it has no account here, and none is made; an unverified one is refused too", async () => {
    await viaProvider("stranger@example.com", /\/dashboard\/oidc\/callback/);
    await page.getByRole("heading", { name: "Single sign-on refused" }).waitFor(WAIT);
    await page.getByText("You have no account here as stranger@example.com").waitFor(WAIT);
    expect(userRoles("stranger@example.com")).toEqual([]);
    expect((await page.context().cookies()).some((c) => c.name === "formsvc_session")).toBe(false);

    await viaProvider("unverified@example.com", /\/dashboard\/oidc\/callback/);
    await page.getByText("did not say that unverified@example.com is verified").waitFor(WAIT);
  });

  test("an answer whose state was changed on the way back is refused", async () => {
    tamper = true;
    try {
      await viaProvider(OWNER.email, /\/dashboard\/oidc\/callback/);
    } finally {
      tamper = false;
    }
    await page.getByRole("heading", { name: "Single sign-on refused" }).waitFor(WAIT);
    await page.getByText(/unexpected "state"/).waitFor(WAIT);
    expect((await page.context().cookies()).some((c) => c.name === "formsvc_session")).toBe(false);
  });

  test("refused sign-ins are in the activity log", async () => {
    await viaProvider(OWNER.email, /\/dashboard\/forms$/);
    await page.goto(`${server.url}/dashboard/activity`);
    await page.getByText("Refused Test IdP sign-in: no member or pending invitation has this email.").waitFor(WAIT);
    expect(dashboard.csp).toEqual([]);
  });
});
