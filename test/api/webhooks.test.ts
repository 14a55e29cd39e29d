import { describe, expect, test } from "bun:test";
import { testApp } from "../helpers/app.ts";
import { TEST_DNS } from "../helpers/dns.ts";
import { operator } from "../../src/services/principal.ts";
import { apiError, runScenarios } from "./scenario.ts";
import { makeWorld, receive, type World } from "./world.ts";

const hooks = (w: World) => `/api/forms/${w.form.id}/webhooks`;
const isoTime = () => expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

async function addWebhook(w: World, body: Record<string, unknown> = { url: "https://hooks.example.com/formsvc" }) {
  const response = await w.t.request("POST", hooks(w), { key: w.admin, body });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string; secretPrefix: string };
}

async function deliveriesOf(w: World, formId = w.form.id, key = w.admin) {
  const response = await w.t.request("GET", `/api/forms/${formId}/deliveries`, { key });
  return ((await response.json()) as { deliveries: any[] }).deliveries;
}

runScenarios<World>("POST /api/forms/{id}/webhooks", makeWorld, [
  {
    name: "201 with the secret, shown this once, and a Location",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: { url: "https://hooks.example.com/formsvc", description: "CRM" },
    expectedStatus: 201,
    expectedBody: {
      id: expect.stringMatching(/^whk_/),
      formId: expect.stringMatching(/^frm_/),
      url: "https://hooks.example.com/formsvc",
      description: "CRM",
      format: "standard",
      when: [],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      secretPrefix: expect.stringMatching(/^whsec_.{4}…$/),
      createdAt: isoTime(),
    },
    expectedHeaders: { location: /^http:\/\/formsvc\.test\/api\/forms\/frm_\w+\/webhooks\/whk_\w+$/ },
  },
  {
    name: "slack and discord formats are taken",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: { url: "https://hooks.example.com/services/T0/B0/X", format: "slack" },
    expectedStatus: 201,
    expectedBody: expect.objectContaining({ format: "slack" }),
  },
  {
    name: "a name that does not resolve yet is accepted: it is checked again before every send",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: { url: "https://not-yet.example.org/hook" },
    expectedStatus: 201,
  },
  {
    name: "an unknown format is 400 invalid_body naming format",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: { url: "https://hooks.example.com/x", format: "teams" },
    expectedStatus: 400,
    expectedBody: apiError("invalid_body", "format"),
  },
  {
    name: "an unknown field is 400 invalid_body",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: { url: "https://hooks.example.com/x", secret: "whsec_mine" },
    expectedStatus: 400,
    expectedBody: apiError("invalid_body", "secret"),
  },
  {
    name: "a missing url is 400 invalid_body naming url",
    method: "POST",
    url: hooks,
    key: (w) => w.admin,
    body: {},
    expectedStatus: 400,
    expectedBody: apiError("invalid_body", "url"),
  },
  {
    name: "an unknown form is 404 form_not_found",
    method: "POST",
    url: "/api/forms/frm_nope/webhooks",
    key: (w) => w.admin,
    body: { url: "https://hooks.example.com/x" },
    expectedStatus: 404,
    expectedBody: apiError("form_not_found"),
  },
]);

describe("webhook addresses: SSRF guard at creation", () => {
  const refused = [
    "http://127.0.0.1/hook",
    "http://127.0.0.1:8080/hook",
    "http://localhost/hook",
    "http://LOCALHOST./hook",
    "http://api.localhost/hook",
    "http://10.0.0.1/hook",
    "http://172.16.5.4/hook",
    "http://192.168.1.1/hook",
    "http://100.64.0.1/hook",
    "http://169.254.169.254/latest/meta-data/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://0.0.0.0/hook",
    "http://[::1]/hook",
    "http://[::]/hook",
    "http://[::ffff:127.0.0.1]/hook",
    "http://[fe80::1]/hook",
    "http://[fd00:ec2::254]/hook",
    "http://224.0.0.1/hook",
    "http://0x7f000001/hook",
    "http://2130706433/hook",
    "http://127.1/hook",
    "http://0177.0.0.1/hook",
    "http://rebind.example.com/hook",
    "http://intranet.example.com/hook",
    "http://mixed.example.com/hook",
    "http://metadata.example.com/hook",
    "http://mapped.example.com/hook",
    "ftp://hooks.example.com/hook",
    "file:///etc/passwd",
    "javascript:alert(1)",
    "hooks.example.com/hook",
    "",
  ];
  test("loopback, private, link-local, metadata, special and odd spellings are 400 invalid_parameter naming url", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      for (const url of refused) {
        const response = await t.request("POST", hooks(w), { key: w.admin, body: { url } });
        expect({ url, status: response.status, body: await response.json() }).toEqual({ url, status: 400, body: apiError("invalid_parameter", "url") });
      }
      expect(await t.services.webhooks.list(operator(w.account.id, "live"), w.form.id)).toEqual([]);
    } finally {
      t.close();
    }
  });

  test("the message says why", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      const response = await t.request("POST", hooks(w), { key: w.admin, body: { url: "http://rebind.example.com/x" } });
      expect(((await response.json()) as any).error.message).toBe(
        "url must be a public address: rebind.example.com resolves to 127.0.0.1, a loopback address. A receiver on this machine or a private network needs the server started with --webhooks-allow-private (or FORMSVC_WEBHOOKS_ALLOW_PRIVATE=true).",
      );
    } finally {
      t.close();
    }
  });

  test("with --webhooks-allow-private a receiver on loopback is accepted", async () => {
    const t = await testApp({ webhooks: { allowPrivate: true, resolve: TEST_DNS } });
    try {
      const w = await makeWorld(t);
      for (const url of ["http://127.0.0.1:9999/hook", "http://localhost:9999/hook", "http://[::1]:9999/hook"]) {
        expect((await t.request("POST", hooks(w), { key: w.admin, body: { url } })).status).toBe(201);
      }
      // Still http(s) only.
      expect((await t.request("POST", hooks(w), { key: w.admin, body: { url: "ftp://127.0.0.1/" } })).status).toBe(400);
    } finally {
      t.close();
    }
  });
});

describe("webhooks: list, rotate, remove", () => {
  test("the list hides every secret; rotate shows a new one once; remove takes the endpoint and its log", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      const made = await addWebhook(w);
      const listed = await t.request("GET", hooks(w), { key: w.admin });
      const text = await listed.text();
      expect(JSON.parse(text)).toEqual({
        webhooks: [
          {
            id: made.id,
            formId: w.form.id,
            url: "https://hooks.example.com/formsvc",
            description: null,
            format: "standard",
            when: [],
            secretPrefix: made.secretPrefix,
            createdAt: isoTime(),
          },
        ],
      });
      expect(text).not.toContain(made.secret.slice(10));

      const rotated = await t.request("POST", `${hooks(w)}/${made.id}/rotate`, { key: w.admin });
      const fresh = (await rotated.json()) as { id: string; secret: string };
      expect(rotated.status).toBe(200);
      expect(fresh.id).toBe(made.id);
      expect(fresh.secret).toMatch(/^whsec_/);
      expect(fresh.secret).not.toBe(made.secret);

      await receive(t, w.form, { email: "x@example.com" });
      expect(await deliveriesOf(w)).toHaveLength(1);
      expect((await t.request("DELETE", `${hooks(w)}/${made.id}`, { key: w.admin })).status).toBe(204);
      expect(await deliveriesOf(w)).toEqual([]);
      const again = await t.request("DELETE", `${hooks(w)}/${made.id}`, { key: w.admin });
      expect({ status: again.status, body: await again.json() }).toEqual({ status: 404, body: apiError("not_found") });
      const rotateGone = await t.request("POST", `${hooks(w)}/${made.id}/rotate`, { key: w.admin });
      expect(rotateGone.status).toBe(404);
      // No secret in the request log.
      expect(t.logs.join("\n")).not.toContain(made.secret.slice(10));
      expect(t.logs.join("\n")).not.toContain(fresh.secret.slice(10));
    } finally {
      t.close();
    }
  });
});

describe("webhook deliveries", () => {
  test("a stored submission queues one submission.created per endpoint, pending, with one webhook-id for the event", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      const a = await addWebhook(w);
      const b = await addWebhook(w, { url: "https://chat.example.com/x", format: "discord" });
      const id = await receive(t, w.form, { email: "ann@example.com" });
      const list = await deliveriesOf(w);
      expect(list).toHaveLength(2);
      for (const delivery of list) {
        expect(delivery).toEqual({
          id: expect.stringMatching(/^dlv_/),
          webhookId: expect.stringMatching(/^whk_/),
          destinationId: null,
          submissionId: id,
          messageId: expect.stringMatching(/^msg_/),
          eventType: "submission.created",
          status: "pending",
          attempts: 0,
          responseStatus: null,
          durationMs: null,
          responseSnippet: null,
          error: null,
          createdAt: isoTime(),
          lastAttemptAt: null,
          nextAttemptAt: isoTime(),
          deliveredAt: null,
        });
      }
      expect(list.map((d) => d.webhookId).toSorted()).toEqual([a.id, b.id].toSorted());
      expect(list[0].messageId).toBe(list[1].messageId);
      const one = await t.request("GET", `${hooks(w)}/${a.id}/deliveries`, { key: w.admin });
      expect(((await one.json()) as any).deliveries.map((d: any) => d.webhookId)).toEqual([a.id]);
    } finally {
      t.close();
    }
  });

  test("spam never makes a delivery; a test-mode form's events are queued too", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      await addWebhook(w);
      await t.services.submissions.receive(w.form.id, { url: "http://spam.example" }, { isSpam: true, spamReason: "honeypot" });
      await t.services.submissions.receive(w.form.id, { email: "x@example.com" }, { isSpam: true, spamReason: "captcha_unverified" });
      expect(await deliveriesOf(w)).toEqual([]);

      const testHook = await t.request("POST", `/api/forms/${w.testForm.id}/webhooks`, {
        key: w.testAdmin,
        body: { url: "https://hooks.example.com/staging" },
      });
      expect(testHook.status).toBe(201);
      await receive(t, w.testForm, { email: "staging@example.com" });
      expect(await deliveriesOf(w, w.testForm.id, w.testAdmin)).toHaveLength(1);
    } finally {
      t.close();
    }
  });

  test("a form takes at most 20 webhooks", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      for (let i = 0; i < 20; i++) await addWebhook(w, { url: `https://hooks.example.com/${i}` });
      const one = await t.request("POST", hooks(w), { key: w.admin, body: { url: "https://hooks.example.com/21" } });
      expect({ status: one.status, body: await one.json() }).toEqual({
        status: 400,
        body: {
          error: { code: "invalid_body", message: "A form may have at most 20 webhooks; remove one first." },
          errors: [{ code: "invalid_body", message: "A form may have at most 20 webhooks; remove one first." }],
        },
      });
    } finally {
      t.close();
    }
  });

  test("an unknown delivery or webhook is 404; bad paging is 400 invalid_parameter", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      const hook = await addWebhook(w);
      const cases: [string, string, number, unknown][] = [
        ["POST", `/api/forms/${w.form.id}/deliveries/dlv_nope/retry`, 404, apiError("not_found")],
        ["GET", `${hooks(w)}/whk_nope/deliveries`, 404, apiError("not_found")],
        ["GET", `${hooks(w)}/${hook.id}/deliveries?limit=0`, 400, apiError("invalid_parameter", "limit")],
        ["GET", `/api/forms/${w.form.id}/deliveries?offset=-1`, 400, apiError("invalid_parameter", "offset")],
      ];
      for (const [method, path, status, body] of cases) {
        const response = await t.request(method, path, { key: w.admin });
        expect({ path, status: response.status, body: await response.json() }).toEqual({ path, status, body });
      }
    } finally {
      t.close();
    }
  });

  test("a claimed delivery is not claimed again by another sender until its lease ends", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      await addWebhook(w);
      await receive(t, w.form, { email: "x@example.com" });
      const now = Date.now();
      const first = await t.services.webhooks.claimDue("server-a", now, 10_000, 10);
      expect(first).toHaveLength(1);
      expect(await t.services.webhooks.claimDue("server-b", now + 1, 10_000, 10)).toEqual([]);
      // server-a died without a word: once its lease is over, another takes the delivery.
      const taken = await t.services.webhooks.claimDue("server-b", now + 10_001, 10_000, 10);
      expect(taken.map((d) => d.id)).toEqual(first.map((d) => d.id));
      // server-a's late answer no longer counts: the claim is server-b's.
      await t.services.webhooks.recordAttempt(
        first[0]!,
        "server-a",
        { ok: true, responseStatus: 200, durationMs: 5, responseSnippet: "ok", error: null },
        now + 10_002,
        1,
      );
      expect((await deliveriesOf(w))[0]).toMatchObject({ status: "pending", attempts: 0 });
      await t.services.webhooks.recordAttempt(
        taken[0]!,
        "server-b",
        { ok: true, responseStatus: 200, durationMs: 5, responseSnippet: "ok", error: null },
        now + 10_003,
        1,
      );
      expect((await deliveriesOf(w))[0]).toMatchObject({ status: "succeeded", attempts: 1 });
    } finally {
      t.close();
    }
  });

  test("failed attempts follow the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the delivery is failed", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      await addWebhook(w);
      await receive(t, w.form, { email: "x@example.com" });
      const failure = { ok: false, responseStatus: 500, durationMs: 3, responseSnippet: "no", error: "answered 500" };
      let now = Date.now();
      const delays: number[] = [];
      let status = "pending";
      while (status === "pending") {
        const [claimed] = await t.services.webhooks.claimDue("server", now, 15_000, 1);
        ({ status } = await t.services.webhooks.recordAttempt(claimed!, "server", failure, now, 1));
        const [after] = await deliveriesOf(w);
        if (after.nextAttemptAt) {
          delays.push(Date.parse(after.nextAttemptAt) - now);
          now = Date.parse(after.nextAttemptAt);
        }
      }
      expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
      expect((await deliveriesOf(w))[0]).toMatchObject({ status: "failed", attempts: 8, nextAttemptAt: null, responseStatus: 500 });
      // A redelivery starts it over.
      const [failed] = await deliveriesOf(w);
      const retried = await t.request("POST", `/api/forms/${w.form.id}/deliveries/${failed.id}/retry`, { key: w.admin });
      expect(await retried.json()).toMatchObject({ id: failed.id, status: "pending", attempts: 0, messageId: failed.messageId });
    } finally {
      t.close();
    }
  });

  test("a submission marked spam after its event was queued is held back", async () => {
    const t = await testApp();
    try {
      const w = await makeWorld(t);
      await addWebhook(w);
      const id = await receive(t, w.form, { email: "x@example.com" });
      await t.services.submissions.update(operator(w.account.id, "live"), w.form.id, id, { isSpam: true });
      expect(await t.services.webhooks.claimDue("server", Date.now(), 15_000, 10)).toEqual([]);
      await t.services.submissions.update(operator(w.account.id, "live"), w.form.id, id, { isSpam: false });
      expect(await t.services.webhooks.claimDue("server", Date.now(), 15_000, 10)).toHaveLength(1);
    } finally {
      t.close();
    }
  });
});
