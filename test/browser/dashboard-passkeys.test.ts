import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { CDPSession, Page } from "playwright-core";
import type { ServerProcess } from "../helpers/server.ts";
import { checkBothWidths, type Dashboard, setUp, setupLink, startDashboard, WAIT } from "./dashboard-support.ts";

// Passkeys in a real Chromium against a real `formsvc serve`, made and used by Chromium's virtual authenticator
// (the DevTools protocol's WebAuthn domain): added with a name, renamed, used to sign in without an email; a
// replayed answer, an answer made on another origin and a signature counter that goes backwards are refused.

setDefaultTimeout(90_000);

let dashboard: Dashboard;
let server: ServerProcess;
let page: Page;
let cdp: CDPSession;
let base = "";
let other: ReturnType<typeof Bun.serve>;
let authenticatorId = "";

/** A free port: the server's public address must be known before it starts (a passkey is bound to its host). */
function freePort(): number {
  const probe = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

beforeAll(async () => {
  const port = freePort();
  base = `http://localhost:${port}`;
  dashboard = await startDashboard({ csp: true, args: ["--rate-limit", "0", "--port", String(port), "--base-url", base] });
  ({ server, page } = dashboard);
  // Another origin with the same host: the relying party id would let a passkey answer there, the server must not.
  other = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response("<!doctype html><title>elsewhere</title>", { headers: { "content-type": "text/html" } }),
  });
  await setUp(page, (await setupLink(server)).replace(/^http:\/\/[^/]+/, base));
  cdp = await page.context().newCDPSession(page);
  await cdp.send("WebAuthn.enable");
  ({ authenticatorId } = await cdp.send("WebAuthn.addVirtualAuthenticator", {
    options: {
      protocol: "ctap2",
      transport: "internal",
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  }));
});

afterAll(async () => {
  other?.stop(true);
  await dashboard?.stop();
});

async function signOut(): Promise<void> {
  await Promise.all([page.waitForURL(/\/dashboard\/signin/, WAIT), page.getByRole("button", { name: "Sign out" }).click()]);
}

/** Clicks "Sign in with a passkey" on the sign-in page; answers the form the page posted. */
async function passkeySignIn(to: RegExp): Promise<string> {
  await page.goto(`${base}/dashboard/signin`);
  const posted = page.waitForRequest((r) => r.url().endsWith("/dashboard/signin/passkey") && r.method() === "POST", WAIT);
  await Promise.all([page.waitForURL(to, WAIT), page.getByRole("button", { name: "Sign in with a passkey" }).click()]);
  return (await posted).postData()!;
}

describe("passkeys", () => {
  test("added from Account → Passkeys with a name, listed, renamed", async () => {
    await page.goto(`${base}/dashboard/account`);
    await Promise.all([page.waitForURL(/\/passkeys$/, WAIT), page.getByRole("link", { name: "Passkeys" }).click()]);
    await page.getByText("No passkey yet.").waitFor(WAIT);
    await page.getByLabel("Name", { exact: true }).fill("Laptop");
    await Promise.all([page.waitForURL(/notice=passkeyadded/, WAIT), page.getByRole("button", { name: "Add a passkey" }).click()]);
    const { credentials } = await cdp.send("WebAuthn.getCredentials", { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
    expect(credentials[0]!.rpId).toBe("localhost");
    await checkBothWidths(page, "passkeys");
    const name = page.getByRole("textbox", { name: "Name of passkey Laptop" });
    await name.fill("Work laptop");
    await Promise.all([page.waitForURL(/notice=saved/, WAIT), page.getByRole("button", { name: "Rename" }).click()]);
    expect(await page.getByRole("textbox", { name: "Name of passkey Work laptop" }).inputValue()).toBe("Work laptop");
  });

  test("'Sign in with a passkey' signs in with no email or password; the same answer sent again is refused", async () => {
    await signOut();
    const answer = await passkeySignIn(/\/dashboard\/forms$/);
    await page.goto(`${base}/dashboard/account/passkeys`);
    expect(await page.getByRole("region", { name: "Passkeys" }).getByRole("cell").nth(2).textContent()).not.toContain("never");
    // Sent again as the browser sent it, its pre-session cookie included: only the used challenge stands in the way.
    const presession = new URLSearchParams(answer).get("_presession")!;
    const replay = await fetch(`${base}/dashboard/signin/passkey`, {
      method: "POST",
      body: answer,
      headers: { origin: base, cookie: `formsvc_presession=${presession}`, "content-type": "application/x-www-form-urlencoded" },
      redirect: "manual",
    });
    expect(replay.status).toBe(401);
    expect(replay.headers.get("set-cookie") ?? "").not.toContain("formsvc_session=");
    expect(await replay.text()).toContain("refused");
  });

  test("an answer made on another origin is refused", async () => {
    await page.goto(`${base}/dashboard/forms`);
    await signOut();
    const presession = (await page.locator('input[name="_presession"]').first().getAttribute("value"))!;
    const options = await (
      await page.request.post(`${base}/dashboard/signin/passkey/options`, { form: { _presession: presession }, headers: { origin: base } })
    ).json();
    await page.goto(`http://localhost:${other.port}/`);
    const response = await page.evaluate(async (o: { challenge: string; rpId: string }) => {
      const dec = (t: string) =>
        Uint8Array.from(
          atob(
            t
              .replace(/-/g, "+")
              .replace(/_/g, "/")
              .padEnd(Math.ceil(t.length / 4) * 4, "="),
          ),
          (c) => c.charCodeAt(0),
        );
      const enc = (b: ArrayBuffer) =>
        btoa(String.fromCharCode(...new Uint8Array(b)))
          .replace(/\+/g, "-")
          .replace(/\//g, "_")
          .replace(/=+$/, "");
      const c = (await navigator.credentials.get({
        publicKey: { challenge: dec(o.challenge), rpId: o.rpId, userVerification: "preferred" },
      })) as PublicKeyCredential;
      const r = c.response as AuthenticatorAssertionResponse;
      return JSON.stringify({
        id: c.id,
        rawId: enc(c.rawId),
        type: c.type,
        clientExtensionResults: {},
        response: {
          clientDataJSON: enc(r.clientDataJSON),
          authenticatorData: enc(r.authenticatorData),
          signature: enc(r.signature),
          userHandle: r.userHandle ? enc(r.userHandle) : undefined,
        },
      });
    }, options);
    const refused = await page.request.post(`${base}/dashboard/signin/passkey`, {
      form: { _presession: presession, response },
      headers: { origin: base },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(401);
    expect(await refused.text()).toContain(`http://localhost:${other.port}`);
  });

  test("a signature counter that goes backwards is refused", async () => {
    // As if a copy of the key had signed far more often than this authenticator: its counter is now behind.
    const db = new Database(server.db);
    db.run("UPDATE passkeys SET counter = 1000000");
    db.close();
    await passkeySignIn(/\/dashboard\/signin\/passkey$/);
    await page
      .getByText(/refused/)
      .first()
      .waitFor(WAIT);
    expect(await page.locator(".notice.error").textContent()).toContain("counter");
  });

  test("removed, it no longer signs in; adding and removing are in the activity log", async () => {
    const db = new Database(server.db);
    db.run("UPDATE passkeys SET counter = 0");
    db.close();
    await passkeySignIn(/\/dashboard\/forms$/);
    await page.goto(`${base}/dashboard/account/passkeys`);
    await Promise.all([page.waitForURL(/notice=passkeyremoved/, WAIT), page.getByRole("button", { name: "Remove passkey Work laptop" }).click()]);
    await page.getByText("No passkey yet.").waitFor(WAIT);
    await page.goto(`${base}/dashboard/activity`);
    await page.getByText('Added the passkey "Laptop".').waitFor(WAIT);
    await page.getByText('Removed the passkey "Work laptop".').waitFor(WAIT);
    await signOut();
    await passkeySignIn(/\/dashboard\/signin\/passkey$/);
    await page.getByText("This passkey is not known here").waitFor(WAIT);
    expect(dashboard.csp).toEqual([]);
  });
});
