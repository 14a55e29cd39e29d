import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";
import { tableResolver } from "../helpers/dns.ts";
import { operator } from "../../src/services/principal.ts";
import { apiError, isoTime } from "./scenario.ts";
import { getJson, makeWorld, type World } from "./world.ts";

// The activity log (docs/api.md, "Activity"): what keys, people and the CLI did, read back by an admin key.

let t: TestApp;
let w: World;
beforeEach(async () => {
  t = await testApp({ webhooks: { allowPrivate: false, resolve: tableResolver({ "hooks.slack.com": ["93.184.215.14"] }) } });
  w = await makeWorld(t);
});
afterEach(() => t.close());

const entry = (actor: string, action: string, target: unknown, summary: string) => ({
  id: expect.stringMatching(/^act_[0-9a-z]{22}$/),
  at: isoTime(),
  actor,
  action,
  target,
  summary,
});

describe("GET /api/activity", () => {
  test("each change made with a key is an entry naming the key's prefix, newest first, with no secret in it", async () => {
    const keyPrefix = w.admin.slice(0, 12);
    const actor = `key:${keyPrefix}`;
    const patched = await t.request("PATCH", `/api/forms/${w.form.id}`, {
      key: w.admin,
      body: { name: "Contact us", isActive: false, captcha: { provider: "turnstile", secret: "0x4AAAAsupersecret" } },
    });
    expect(patched.status).toBe(200);
    const hook = (await (
      await t.request("POST", `/api/forms/${w.form.id}/webhooks`, {
        key: w.admin,
        body: { url: "https://hooks.slack.com/services/T0/B0/tokentoken", format: "slack" },
      })
    ).json()) as { id: string; secret: string };
    const rotated = (await (await t.request("POST", `/api/forms/${w.form.id}/webhooks/${hook.id}/rotate`, { key: w.admin })).json()) as { secret: string };
    expect((await t.request("DELETE", `/api/forms/${w.form.id}/webhooks/${hook.id}`, { key: w.admin })).status).toBe(204);
    const key = (await (await t.request("POST", "/api/keys", { key: w.admin, body: { name: "cron", permissions: ["read"] } })).json()) as {
      id: string;
      key: string;
    };
    expect((await t.request("DELETE", `/api/keys/${key.id}`, { key: w.admin })).status).toBe(204);
    const erased = await t.request("POST", "/api/submissions/erase", { key: w.admin, body: { email: "ann@example.com" } });
    expect(((await erased.json()) as { erased: number }).erased).toBe(1);

    const { status, body } = await getJson(w, "/api/activity?limit=7");
    expect(status).toBe(200);
    const shown = `${key.key.slice(0, 12)}…`;
    expect(body).toEqual({
      activity: [
        entry(actor, "submissions.erase", "live", "Erased 1 submissions of one person in 1 forms."),
        entry(actor, "key.revoke", key.id, `Revoked live key ${shown}.`),
        entry(actor, "key.create", key.id, `Created live key ${shown} (read) named "cron".`),
        entry(actor, "webhook.delete", hook.id, `Removed the webhook to hooks.slack.com from "Contact us".`),
        entry(actor, "webhook.rotate", hook.id, `Rotated the secret of the webhook to hooks.slack.com on "Contact us".`),
        entry(actor, "webhook.create", hook.id, `Added a slack webhook to hooks.slack.com on "Contact us".`),
        entry(actor, "form.update", w.form.id, `Changed "Contact": name "Contact us", isActive false, captcha.`),
      ],
      pagination: { limit: 7, hasMore: true, nextCursor: body.activity[6].id },
    });
    const text = JSON.stringify(body);
    for (const secret of ["0x4AAAAsupersecret", "tokentoken", hook.secret, rotated.secret, key.key, "ann@example.com"]) expect(text).not.toContain(secret);
  });

  test("pages follow nextCursor to the first entries, which the CLI's operator made", async () => {
    const first = await getJson(w, "/api/activity?limit=2");
    const second = await getJson(w, `/api/activity?limit=100&after=${first.body.pagination.nextCursor}`);
    const all = [...first.body.activity, ...second.body.activity];
    expect(second.body.pagination).toEqual({ limit: 100, hasMore: false, nextCursor: null });
    // makeWorld made two forms and two keys of this account through the services, as the local CLI does.
    expect(all.map((e: { actor: string; action: string }) => `${e.actor} ${e.action}`).toReversed()).toEqual([
      "cli form.create",
      "cli form.create",
      "cli key.create",
      "cli key.create",
    ]);
  });

  test("another account's entries are never shown, and a test key of the account reads the same log", async () => {
    await t.request("POST", "/api/forms", { key: w.other.admin, body: { name: "Theirs" } });
    const ours = await getJson(w, "/api/activity");
    expect(JSON.stringify(ours.body)).not.toContain("Theirs");
    expect((await getJson(w, "/api/activity", w.testAdmin)).body).toEqual(ours.body);
  });

  test("bad paging is 400 invalid_parameter naming the parameter", async () => {
    expect(await getJson(w, "/api/activity?limit=0")).toEqual({ status: 400, body: apiError("invalid_parameter", "limit") });
    expect(await getJson(w, "/api/activity?limit=101")).toEqual({ status: 400, body: apiError("invalid_parameter", "limit") });
    expect(await getJson(w, "/api/activity?after=sub_0123456789abcdefghijkl")).toEqual({ status: 400, body: apiError("invalid_parameter", "after") });
  });

  test("one bulk action on a selection of submissions is one entry", async () => {
    const ids = [w.submission, (await t.services.submissions.receive(w.form.id, { email: "bo@example.com" }, { isSpam: false })).id];
    const changed = await t.services.submissionBulk.apply({ ...operator(w.account.id, "live"), actor: "user:ada@example.com" }, w.form.id, ids, "spam");
    expect(changed).toBe(2);
    const { body } = await getJson(w, "/api/activity?limit=1");
    expect(body.activity).toEqual([entry("user:ada@example.com", "submissions.spam", w.form.id, `Marked 2 submissions of "Contact" spam.`)]);
  });

  test("a change to one submission through the API is one entry naming it and the flags set; a deletion too", async () => {
    const actor = `key:${w.admin.slice(0, 12)}`;
    const at = `/api/forms/${w.form.id}/submissions/${w.submission}`;
    expect((await t.request("PATCH", at, { key: w.admin, body: { isStarred: true, isRead: false } })).status).toBe(200);
    expect((await t.request("PATCH", at, { key: w.admin, body: { isSpam: false } })).status).toBe(200);
    expect((await t.request("DELETE", at, { key: w.admin })).status).toBe(204);
    const { body } = await getJson(w, "/api/activity?limit=3");
    expect(body.activity).toEqual([
      entry(actor, "submission.delete", w.submission, `Deleted a submission of "Contact".`),
      entry(actor, "submission.update", w.submission, `Marked a submission of "Contact" not spam.`),
      entry(actor, "submission.update", w.submission, `Marked a submission of "Contact" unread, starred.`),
    ]);
  });

  test("the purge removes entries older than the days kept, and only those", async () => {
    const before = (await getJson(w, "/api/activity?limit=100")).body.activity.length;
    expect(await t.services.activity.purge(Date.now() - 1000)).toBe(0);
    expect(await t.services.activity.purge(Date.now() + 1000)).toBeGreaterThanOrEqual(before);
    expect((await getJson(w, "/api/activity")).body.activity).toEqual([]);
  });
});
