import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";
import { count, eq } from "drizzle-orm";
import { signinLinks, webhooks } from "../../src/db/schema.ts";
import { operator } from "../../src/services/principal.ts";

// The dashboard's HTTP rules, in-process: cookies, the Origin and CSRF checks, accounts kept apart.

let t: TestApp;
let mineId: string;
let theirsId: string;
let ownForm: { id: string };
let othersForm: { id: string };
let cookie: string;
let csrf: string;

beforeAll(async () => {
  t = await testApp();
  const mine = await t.account("mine");
  const theirs = await t.account("theirs");
  mineId = mine.id;
  theirsId = theirs.id;
  ownForm = await mine.form({ name: "Mine" });
  othersForm = await theirs.form({ name: "Theirs" });
  const user = await t.services.users.create(mine.id, "me@example.com", "a long enough password");
  const session = await t.services.users.createSession(user.id);
  cookie = `formsvc_session=${session.token}`;
  csrf = session.csrfToken;
});
afterAll(() => t.close());

const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.fetch(
    new Request(`${BASE}${path}`, {
      method: "POST",
      headers: { cookie, "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(fields),
    }),
  );
const get = (path: string, base = BASE) => t.app.fetch(new Request(`${base}${path}`, { headers: { cookie } }));

describe("sign-in links", () => {
  test("expired links are swept when a session opens; a live one still signs in once", async () => {
    const links = async () => (await t.services.store.db.select({ n: count() }).from(signinLinks))[0]!.n;
    const user = (await t.services.users.list()).find((u) => u.email === "me@example.com")!;
    const before = await links();
    await t.services.users.createLink("signin", user.id, -1);
    await t.services.users.createLink("signin", user.id, -1);
    const live = await t.services.users.createLink("signin", user.id, 60_000);
    expect(await links()).toBe(before + 3);
    await t.services.users.createSession(user.id);
    expect(await links()).toBe(1);
    expect(await t.services.users.checkLink("signin", live)).toBe(true);
  });
});

describe("cookies", () => {
  test("over https the cookies are Secure; over http they are not", async () => {
    const secure = await t.app.fetch(new Request("https://formsvc.test/dashboard/signin"));
    expect(secure.headers.get("set-cookie")).toMatch(/^formsvc_presession=\w{32}; Path=\/dashboard; HttpOnly; SameSite=Lax; Max-Age=3600; Secure$/);
    const plain = await t.app.fetch(new Request(`${BASE}/dashboard/signin`));
    expect(plain.headers.get("set-cookie")).not.toContain("Secure");
  });
});

describe("state-changing requests", () => {
  test("without Origin or Referer a POST is refused, and nothing changes", async () => {
    const answer = await post(`/dashboard/forms/${ownForm.id}/settings`, { _csrf: csrf, name: "Renamed", slug: "renamed-form" });
    expect(answer.status).toBe(403);
    expect(answer.headers.get("content-security-policy")).toBe("default-src 'self'; frame-ancestors 'none'");
    expect(await answer.text()).toContain("did not come from a page of this dashboard");
    expect(await t.services.forms.findBySlug("renamed-form")).toBeNull();
  });

  test("a same-origin Referer stands in for a missing Origin; a wrong CSRF token is still refused", async () => {
    const refused = await post(
      `/dashboard/forms/${ownForm.id}/settings`,
      { _csrf: "A".repeat(32), name: "Renamed", slug: "renamed-form" },
      { referer: `${BASE}/dashboard/forms` },
    );
    expect(refused.status).toBe(403);
    const saved = await post(
      `/dashboard/forms/${ownForm.id}/settings`,
      { _csrf: csrf, name: "Renamed", slug: "renamed-form" },
      { referer: `${BASE}/dashboard/forms/${ownForm.id}/settings` },
    );
    expect({ status: saved.status, location: saved.headers.get("location") }).toEqual({
      status: 303,
      location: `/dashboard/forms/${ownForm.id}/settings?notice=saved&at=general#general`,
    });
    expect((await t.services.forms.findBySlug("renamed-form"))?.name).toBe("Renamed");
  });

  test("a malformed token (non-ASCII, of the right length in characters) is 400, never a 500, and changes nothing", async () => {
    const crafted = "é".repeat(32);
    const action = await post(`/dashboard/forms/${ownForm.id}/settings`, { _csrf: crafted, name: "Crafted", slug: "crafted" }, { origin: BASE });
    expect({ status: action.status, text: await action.text() }).toEqual({ status: 400, text: expect.stringContaining("malformed") });
    const anonymous = (path: string, fields: Record<string, string>) =>
      t.app.fetch(
        new Request(`${BASE}${path}`, {
          method: "POST",
          headers: { cookie: `formsvc_presession=${"a".repeat(32)}`, origin: BASE, "content-type": "application/x-www-form-urlencoded" },
          body: new URLSearchParams(fields),
        }),
      );
    const signin = await anonymous("/dashboard/signin", { _presession: crafted, email: "me@example.com", password: "a long enough password" });
    expect(signin.status).toBe(400);
    const setup = await anonymous("/dashboard/setup", { _presession: crafted, token: "x", email: "x@example.com", password: "p", confirm: "p" });
    expect(setup.status).toBe(400);
    expect(await t.services.forms.findBySlug("crafted")).toBeNull();
  });

  test("the deliveries page shows each webhook endpoint, delivering or paused after failing in a row", async () => {
    const principal = operator(mineId, "live");
    const open = await t.services.webhooks.create(principal, ownForm.id, { url: "https://hooks.example.com/down" });
    await t.services.webhooks.create(principal, ownForm.id, { url: "https://hooks.example.com/up" });
    await t.services.store.write((tx) =>
      tx
        .update(webhooks)
        .set({ failureStreak: 5, circuitOpenUntil: Date.now() + 60_000 })
        .where(eq(webhooks.id, open.id)),
    );
    const text = await (await get(`/dashboard/forms/${ownForm.id}/deliveries`)).text();
    const rows = text.split("<tr>").slice(2);
    expect(rows.map((row) => [row.includes("/down"), row.includes("paused"), row.includes("delivering")])).toEqual([
      [true, true, false],
      [false, false, true],
    ]);
  });

  test("an Origin of another site is refused even with the right token", async () => {
    const answer = await post("/dashboard/forms", { _csrf: csrf, name: "Planted" }, { origin: "http://evil.test" });
    expect(answer.status).toBe(403);
    expect((await t.services.forms.listRows(operator(mineId, "live"))).map((r) => r.name)).toEqual(["Renamed"]);
  });
});

describe("accounts stay apart", () => {
  test("another account's form is not found on every page of a form", async () => {
    for (const tab of ["submissions", "settings", "deliveries", "export?format=csv"]) {
      const answer = await get(`/dashboard/forms/${othersForm.id}/${tab}`);
      expect({ tab, status: answer.status }).toEqual({ tab, status: 404 });
      expect(await answer.text()).toContain(`No form ${othersForm.id}.`);
    }
    const deleted = await post(`/dashboard/forms/${othersForm.id}/delete`, { _csrf: csrf, confirm: "Theirs" }, { origin: BASE });
    expect(deleted.status).toBe(404);
    expect((await t.services.forms.get(operator(theirsId, "live"), othersForm.id)).name).toBe("Theirs");
  });

  test("an unknown method is 405 with Allow, as a page with the security headers", async () => {
    const answer = await t.app.fetch(new Request(`${BASE}/dashboard/forms`, { method: "PUT", headers: { cookie } }));
    expect({
      status: answer.status,
      allow: answer.headers.get("allow"),
      nosniff: answer.headers.get("x-content-type-options"),
      type: answer.headers.get("content-type"),
    }).toEqual({
      status: 405,
      allow: "GET, POST, HEAD",
      nosniff: "nosniff",
      type: "text/html; charset=utf-8",
    });
  });
});

describe("the test submission goes through the public endpoint's rules, as the owner's post", () => {
  test("it skips the allowed domains, and is refused by an inactive form, storing nothing", async () => {
    const mine = operator(mineId, "live");
    const form = await t.services.forms.create(mine, { name: "Guarded", allowedDomains: ["example.com"] });
    const send = () => post(`/dashboard/forms/${form.id}/test`, { _csrf: csrf }, { origin: BASE });
    expect((await send()).headers.get("location")).toBe(`/dashboard/forms/${form.id}/submissions?notice=tested`);
    expect((await t.services.forms.get(mine, form.id)).submissionCount).toBe(1);

    await t.services.forms.update(mine, form.id, { isActive: false });
    const refused = await send();
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("This form is not accepting submissions right now.");
    expect((await t.services.forms.get(mine, form.id)).submissionCount).toBe(1);
  });
});

describe("the settings page's HTML snippet", () => {
  test("is made from the form's declared fields, so that the browser checks what the server will", async () => {
    const form = await t.services.forms.create(operator(mineId, "live"), {
      name: "Declared",
      fields: [
        { name: "email", label: "Your email", type: "email", required: true },
        { name: "age", type: "number", min: 18 },
        { name: "topic", type: "select", options: ["sales", "support"], required: true },
      ],
    });
    const page = await (await get(`/dashboard/forms/${form.id}/settings`)).text();
    const snippet = /<code id="snippet-html">([\s\S]*?)<\/code>/.exec(page)![1]!.replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"');
    expect(snippet.split("\n").slice(1, 4)).toEqual([
      '  <label>Your email <input name="email" type="email" required></label>',
      '  <label>age <input name="age" type="number" min="18"></label>',
      '  <label>topic <select name="topic" required><option>sales</option><option>support</option></select></label>',
    ]);
  });
});

describe("the inbox's since", () => {
  test("a since that cannot be read is a 400 that says so, lists nothing and offers no download; a span works", async () => {
    await t.services.submissions.receive(ownForm.id, { email: "ann@example.com" }, { isSpam: false });
    const inbox = `/dashboard/forms/${ownForm.id}/submissions`;
    const bad = await get(`${inbox}?since=yesterday`);
    const badPage = await bad.text();
    expect(bad.status).toBe(400);
    // The API's own words for the same parameter: one parser reads the inbox's address and GET …/submissions.
    expect(badPage).toContain(
      '<p class="error" id="f-since-error">since must be an ISO 8601 date or date-time such as 2026-11-22T12:00:00Z, or a span back from now such as 24h or 7d, not &quot;yesterday&quot;.</p>',
    );
    expect(badPage).toContain("Nothing is listed while the search or Since cannot be read");
    expect(badPage).not.toContain("ann@example.com");
    expect(badPage).not.toContain("/export?");
    const good = await get(`${inbox}?since=1h`);
    const goodPage = await good.text();
    expect(good.status).toBe(200);
    expect(goodPage).toContain("ann@example.com");
    expect(goodPage).toContain(`/dashboard/forms/${ownForm.id}/export?format=csv&amp;since=1h`);
  });

  test("an export asked for with a since that cannot be read goes back to the inbox, which says why, rather than exporting everything", async () => {
    const answer = await get(`/dashboard/forms/${ownForm.id}/export?format=csv&since=7x&filter=unread`);
    expect({ status: answer.status, location: answer.headers.get("location") }).toEqual({
      status: 303,
      location: `/dashboard/forms/${ownForm.id}/submissions?filter=unread&since=7x`,
    });
  });

  test("a search longer than the API takes is said beside Search, in the API's words; an unknown filter is All", async () => {
    const answer = await get(`/dashboard/forms/${ownForm.id}/submissions?filter=nonsense&q=${"a".repeat(201)}`);
    const text = await answer.text();
    expect(answer.status).toBe(400);
    expect(text).toContain('<p class="error" id="f-q-error">q must be at most 200 characters.</p>');
    expect(text).toMatch(/aria-current="page">All</);
  });
});
