import { afterEach, describe, expect, test } from "bun:test";
import { createHash, generateKeyPairSync } from "node:crypto";
import { eq } from "drizzle-orm";
import { notifications } from "../../src/db/schema.ts";
import { startWebhookSender } from "../../src/workers/webhook-sender.ts";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";

// Destinations against faithful stand-ins of each service (test/helpers/vendors.ts), sent by the real webhook
// sender on a schedule shrunk a thousandfold. A request that drifts from a vendor's documentation is refused
// there as the vendor would refuse it, so the delivery fails and the test with it.
const LOOPBACK = async () => [{ address: "127.0.0.1", family: 4 as const }];
const json = { accept: "application/json" };

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Rig {
  t: TestApp;
  vendors: Vendors;
  key: string;
  form: { id: string; slug: string };
  logs: string[];
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any; text: string }>;
  post(data: Record<string, unknown>): Promise<string>;
  add(type: string, config: Record<string, unknown>, extra?: Record<string, unknown>): Promise<any>;
  deliveriesWhen(done: (list: any[]) => boolean): Promise<any[]>;
}

async function rig(formBody: Record<string, unknown> = {}, options: { allowPrivate?: boolean; sender?: boolean } = {}): Promise<Rig> {
  const t = await testApp({ webhooks: { allowPrivate: options.allowPrivate ?? true, resolve: LOOPBACK } });
  cleanups.push(() => t.close());
  const vendors = startVendors();
  cleanups.push(() => vendors.stop());
  const logs: string[] = [];
  if (options.sender !== false) {
    const sender = startWebhookSender(t.services.webhooks, {
      retryScale: 0.001,
      allowPrivate: options.allowPrivate ?? true,
      resolve: LOOPBACK,
      userAgent: "formsvc-test",
      log: { line: (text) => logs.push(text), error: (message, error) => logs.push(`${message}: ${String(error)}`) },
    });
    cleanups.push(() => sender.stop(500));
  }
  const account = await t.account();
  const key = await account.key();
  const form = await account.form(formBody);
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await t.request(method, path, { key, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, text };
  };
  return {
    t,
    vendors,
    key,
    form,
    logs,
    api,
    async post(data) {
      const answer = await t.request("POST", `/f/${form.slug}`, { body: data, headers: json });
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { id: string }).id;
    },
    async add(type, config, extra = {}) {
      const created = await api("POST", `/api/forms/${form.id}/destinations`, { type, config, ...extra });
      expect(created.status).toBe(201);
      return created.body;
    },
    async deliveriesWhen(done) {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const list = (await api("GET", `/api/forms/${form.id}/deliveries`)).body.deliveries as any[];
        if (done(list)) return list;
        if (Date.now() > deadline) throw new Error(`deliveries never reached the state wanted: ${JSON.stringify(list)}`);
        await Bun.sleep(20);
      }
    },
  };
}

const settled = (list: any[]) => list.length > 0 && list.every((d) => d.status !== "pending");

describe("each type, against its service's stand-in", () => {
  test("google_sheets: a signed JWT for a token at the key's token_uri, kept for the next row; values:append RAW", async () => {
    const r = await rig();
    await r.add(
      "google_sheets",
      {
        serviceAccountKey: JSON.stringify(r.vendors.serviceAccountKey()),
        spreadsheetId: VENDOR.sheets.spreadsheetId,
        sheet: VENDOR.sheets.sheet,
        baseUrl: r.vendors.url,
      },
      { fields: { name: "Name", email: "Email", total: "Total" } },
    );
    await r.post({ email: "ann@example.com", name: "Ann", total: "=SUM(A1:A9)" });
    await r.post({ email: "bob@example.com", name: "Bob" });
    const rows = await r.vendors.waitFor("sheets", 2);
    expect(rows.map((row) => row.slice(1))).toEqual([
      ["Ann", "ann@example.com", "=SUM(A1:A9)"],
      ["Bob", "bob@example.com"],
    ]);
    expect(rows[0][0]).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    // One token for both rows: it is cached until it expires.
    expect(r.vendors.tokensGranted).toBe(1);
    const list = await r.deliveriesWhen(settled);
    expect(list.map((d) => d.status)).toEqual(["succeeded", "succeeded"]);
  });

  test("google_sheets: a cached token serves only the key that obtained it, never another account naming the same account", async () => {
    const r = await rig();
    const ownersKey = r.vendors.serviceAccountKey();
    await r.add("google_sheets", {
      serviceAccountKey: ownersKey,
      spreadsheetId: VENDOR.sheets.spreadsheetId,
      sheet: VENDOR.sheets.sheet,
      baseUrl: r.vendors.url,
    });
    // The owner's key gets a token in both places that keep them: the sender's (a post) and the test button's.
    await r.post({ email: "ann@example.com" });
    await r.vendors.waitFor("sheets", 1);
    const made0 = (await r.api("GET", `/api/forms/${r.form.id}/destinations`)).body.destinations[0];
    expect((await r.api("POST", `/api/forms/${r.form.id}/destinations/${made0.id}/test`)).body.ok).toBe(true);
    expect(r.vendors.tokensGranted).toBe(2);

    // Another account on the same server names the owner's (public) service account email and key id, with a
    // private key of its own, and sends the rows to a host of its own.
    const seen: string[] = [];
    const receiver = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(request) {
        seen.push(request.headers.get("authorization") ?? "");
        return Response.json({ updates: { updatedRows: 1 } });
      },
    });
    cleanups.push(() => receiver.stop(true));
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const strangersKey = { ...ownersKey, private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString() };
    const stranger = await r.t.account("stranger");
    const strangerKey = await stranger.key();
    const strangerForm = await stranger.form();
    const made = await r.t.request("POST", `/api/forms/${strangerForm.id}/destinations`, {
      key: strangerKey,
      body: {
        type: "google_sheets",
        config: {
          serviceAccountKey: strangersKey,
          spreadsheetId: VENDOR.sheets.spreadsheetId,
          sheet: VENDOR.sheets.sheet,
          baseUrl: `http://127.0.0.1:${receiver.port}`,
        },
      },
    });
    expect(made.status).toBe(201);
    const { id } = (await made.json()) as { id: string };
    const tried = await r.t.request("POST", `/api/forms/${strangerForm.id}/destinations/${id}/test`, { key: strangerKey });
    // Its own key signs its own assertion, which Google refuses: no token, so nothing reaches its host.
    expect(((await tried.json()) as { ok: boolean }).ok).toBe(false);
    const posted = await r.t.request("POST", `/f/${strangerForm.slug}`, { body: { email: "eve@example.com" }, headers: json });
    expect(posted.status).toBe(200);
    const attempted = async () => {
      const answer = await r.t.request("GET", `/api/forms/${strangerForm.id}/deliveries`, { key: strangerKey });
      return ((await answer.json()) as { deliveries: { attempts: number; error: string | null }[] }).deliveries;
    };
    const deadline = Date.now() + 15_000;
    while (((await attempted())[0]?.attempts ?? 0) < 1 && Date.now() < deadline) await Bun.sleep(20);
    expect((await attempted())[0]?.error).toStartWith("Sheets: Google refused the service account's key");
    expect(seen).toEqual([]);
    expect(r.vendors.tokensGranted).toBe(2);
  });

  test("google_sheets: a spreadsheet not shared with the service account is explained in the log", async () => {
    const r = await rig();
    const stranger = "stranger@other-project.iam.gserviceaccount.com";
    const made = await r.add("google_sheets", {
      serviceAccountKey: r.vendors.serviceAccountKey(stranger),
      spreadsheetId: VENDOR.sheets.spreadsheetId,
      sheet: VENDOR.sheets.sheet,
      baseUrl: r.vendors.url,
    });
    await r.post({ email: "ann@example.com" });
    const [delivery] = await r.deliveriesWhen((list) => list[0]?.attempts >= 1);
    expect(delivery).toMatchObject({
      destinationId: made.id,
      webhookId: null,
      responseStatus: 403,
      error: `Sheets: the service account cannot edit this spreadsheet: share it with ${stranger} as an editor.`,
    });
  });

  test("airtable: a record created in the base's table, under the mapped names", async () => {
    const r = await rig();
    await r.add(
      "airtable",
      { token: VENDOR.airtable.token, baseId: VENDOR.airtable.baseId, table: VENDOR.airtable.table, baseUrl: r.vendors.url },
      { fields: { email: "Email", name: "Name" } },
    );
    await r.post({ email: "ann@example.com", name: "Ann", secretNote: "not mapped" });
    expect(await r.vendors.waitFor("airtable", 1)).toEqual([{ Email: "ann@example.com", Name: "Ann" }]);
    const call = r.vendors.calls.find((c) => c.path.startsWith("/v0/"))!;
    expect({ method: call.method, path: call.path }).toEqual({ method: "POST", path: `/v0/${VENDOR.airtable.baseId}/${VENDOR.airtable.table}` });
    expect(await r.deliveriesWhen(settled)).toMatchObject([{ status: "succeeded", responseStatus: 200 }]);
  });

  test("airtable: a refused token is said in the owner's words", async () => {
    const r = await rig();
    await r.add("airtable", { token: "patWrong.token", baseId: VENDOR.airtable.baseId, table: VENDOR.airtable.table, baseUrl: r.vendors.url });
    await r.post({ email: "ann@example.com" });
    const [delivery] = await r.deliveriesWhen((list) => list[0]?.attempts >= 1);
    expect(delivery.error).toBe("Airtable refused the token (401).");
  });

  test("notion: the database's schema read with Notion-Version, then a page with each field by its property's type", async () => {
    const r = await rig();
    await r.add(
      "notion",
      { token: VENDOR.notion.token, databaseId: VENDOR.notion.databaseId, baseUrl: r.vendors.url },
      { fields: { name: "Name", email: "email", message: "message", count: "count", topic: "topic", agree: "agree", who: "Assignee", other: "Nowhere" } },
    );
    await r.post({ name: "Ann", email: "ann@example.com", message: "Hello", count: "3", topic: "Sales, EMEA", agree: "on", who: "Bob", other: "dropped" });
    const [page] = await r.vendors.waitFor("notion", 1);
    expect(page).toEqual({
      Name: { title: [{ type: "text", text: { content: "Ann" } }] },
      email: { email: "ann@example.com" },
      message: { rich_text: [{ type: "text", text: { content: "Hello" } }] },
      count: { number: 3 },
      topic: { select: { name: "Sales  EMEA" } },
      agree: { checkbox: true },
    });
    expect(r.vendors.calls.filter((c) => c.path.startsWith("/v1/")).map((c) => [c.method, c.headers["notion-version"]])).toEqual([
      ["GET", "2022-06-28"],
      ["POST", "2022-06-28"],
    ]);
  });

  test("mailchimp: the member put by the MD5 of the lowercased address, with basic auth; merge fields only as mapped", async () => {
    const r = await rig();
    await r.add(
      "mailchimp",
      { apiKey: VENDOR.mailchimp.apiKey, audienceId: VENDOR.mailchimp.audienceId, status: "pending", baseUrl: r.vendors.url },
      { fields: { name: "FNAME" } },
    );
    await r.add("mailchimp", { apiKey: VENDOR.mailchimp.apiKey, audienceId: VENDOR.mailchimp.audienceId, status: "subscribed", baseUrl: r.vendors.url });
    await r.post({ email: "Ann.Lee@Example.com", name: "Ann", phone: "555" });
    const members = await r.vendors.waitFor("mailchimp", 2);
    expect(members).toContainEqual({ email_address: "Ann.Lee@Example.com", status_if_new: "pending", merge_fields: { FNAME: "Ann" } });
    expect(members).toContainEqual({ email_address: "Ann.Lee@Example.com", status_if_new: "subscribed" });
    const hash = createHash("md5").update("ann.lee@example.com").digest("hex");
    expect(r.vendors.calls.filter((c) => c.path.startsWith("/3.0/")).map((c) => c.path)).toEqual([
      `/3.0/lists/${VENDOR.mailchimp.audienceId}/members/${hash}`,
      `/3.0/lists/${VENDOR.mailchimp.audienceId}/members/${hash}`,
    ]);
  });

  test("mailchimp: a key without its data centre is refused at creation", async () => {
    const r = await rig({}, { sender: false });
    const made = await r.api("POST", `/api/forms/${r.form.id}/destinations`, { type: "mailchimp", config: { apiKey: "0123456789abcdef", audienceId: "a1" } });
    expect(made.status).toBe(400);
    expect(made.body.error).toEqual({ code: "invalid_body", message: "config.apiKey must end with its data centre, such as -us21.", field: "config.apiKey" });
  });

  test("telegram: sendMessage to the chat, in plain text; a wrong chat is explained", async () => {
    const r = await rig();
    await r.add("telegram", { botToken: VENDOR.telegram.botToken, chatId: VENDOR.telegram.chatId, baseUrl: r.vendors.url });
    await r.add("telegram", { botToken: VENDOR.telegram.botToken, chatId: "42", baseUrl: r.vendors.url });
    await r.post({ name: "Ann", message: "<b>Hi</b>" });
    const [sent] = await r.vendors.waitFor("telegram", 1);
    expect(sent).toEqual({
      chat_id: VENDOR.telegram.chatId,
      text: "New submission to Contact\n\nname: Ann\nmessage: <b>Hi</b>",
      link_preview_options: { is_disabled: true },
    });
    const list = await r.deliveriesWhen((l) => l.length === 2 && l.every((d) => d.attempts >= 1));
    expect(list.map((d) => d.error ?? "none").sort()).toEqual(["Telegram: chat 42 not found (400): add the bot to the chat, or start a chat with it.", "none"]);
  });

  test("teams: an Adaptive Card to the Workflows address, 202 taken as success, links in values defanged", async () => {
    const r = await rig();
    await r.add("teams", { url: `${r.vendors.url}${VENDOR.teams.path}` });
    await r.post({ name: "Ann", site: "https://evil.example/login" });
    const [card] = await r.vendors.waitFor("teams", 1);
    expect(card.body[1]).toEqual({
      type: "FactSet",
      facts: [
        { title: "name", value: "Ann" },
        { title: "site", value: "hxxps://evil[.]example/login" },
      ],
    });
    expect(await r.deliveriesWhen(settled)).toMatchObject([{ status: "succeeded", responseStatus: 202 }]);
  });

  test("ntfy: the message to the topic with its Title, Tags, Priority and the bearer token", async () => {
    const r = await rig();
    await r.add("ntfy", { topic: VENDOR.ntfy.topic, token: VENDOR.ntfy.token, priority: 4, tags: ["inbox"], baseUrl: r.vendors.url });
    await r.post({ name: "Ann", message: "Hello" });
    expect(await r.vendors.waitFor("ntfy", 1)).toEqual([
      { topic: VENDOR.ntfy.topic, message: "name: Ann\nmessage: Hello", title: "New submission to Contact", tags: "inbox", priority: "4" },
    ]);
  });
});

describe("the outbox's promises hold for destinations", () => {
  test("spam and an unconfirmed submission reach no destination; out of spam, once", async () => {
    const r = await rig({ confirmation: { enabled: true, subject: "Hi", text: "Hello", doubleOptIn: true } });
    await r.add("ntfy", { topic: "open-topic", baseUrl: r.vendors.url });
    await r.post({ email: "ann@example.com", _gotcha: "bot" });
    await r.post({ email: "bob@example.com" });
    expect((await r.api("GET", `/api/forms/${r.form.id}/deliveries`)).body.deliveries).toEqual([]);
    // The honeypot's spam, moved out by the owner: it goes now, once (and on a double opt-in form, after its link).
    const [spam] = (await r.api("GET", `/api/forms/${r.form.id}/submissions?filter=spam`)).body.submissions;
    await r.api("PATCH", `/api/forms/${r.form.id}/submissions/${spam.id}`, { isSpam: false });
    const rows = await r.t.services.store.db.select().from(notifications).where(eq(notifications.to, "ann@example.com"));
    const row = rows.find((n) => n.body !== null);
    const link = /(\/confirm\/\S+)$/m.exec(row!.body!)?.[1];
    if (!link) throw new Error(`no link in ${JSON.stringify(row)}`);
    expect((await r.t.app.fetch(new Request(`${BASE}${link}`), { ip: "203.0.113.9" })).status).toBe(200);
    expect((await r.t.app.fetch(new Request(`${BASE}${link}`), { ip: "203.0.113.9" })).status).toBe(200);
    const list = await r.deliveriesWhen(settled);
    expect(list.map((d) => d.submissionId)).toEqual([spam.id]);
    expect(r.vendors.accepted.ntfy.map((n) => n.message)).toEqual(["email: ann@example.com"]);
  });

  test("a service that fails three times, then takes it, gets the submission once", async () => {
    const r = await rig();
    await r.add("airtable", { token: VENDOR.airtable.token, baseId: VENDOR.airtable.baseId, table: VENDOR.airtable.table, baseUrl: r.vendors.url });
    r.vendors.failNext("/v0/", 3);
    await r.post({ email: "ann@example.com" });
    await r.vendors.waitFor("airtable", 1);
    const [delivery] = await r.deliveriesWhen(settled);
    expect(delivery).toMatchObject({ status: "succeeded", attempts: 4, responseStatus: 200, error: null });
    expect(r.vendors.accepted.airtable).toEqual([{ email: "ann@example.com" }]);
    expect(r.vendors.calls.filter((c) => c.path.startsWith("/v0/"))).toHaveLength(4);
  });

  test("a failed delivery is sent again by POST …/deliveries/{id}/retry", async () => {
    const r = await rig();
    const made = await r.add("airtable", { token: "patWrong.token", baseId: VENDOR.airtable.baseId, table: VENDOR.airtable.table, baseUrl: r.vendors.url });
    await r.post({ email: "ann@example.com" });
    const [failing] = await r.deliveriesWhen((l) => l[0]?.attempts >= 1);
    await r.api("PATCH", `/api/forms/${r.form.id}/destinations/${made.id}`, {
      config: { baseId: VENDOR.airtable.baseId, table: VENDOR.airtable.table, baseUrl: r.vendors.url, token: VENDOR.airtable.token },
    });
    const retried = await r.api("POST", `/api/forms/${r.form.id}/deliveries/${failing.id}/retry`);
    expect(retried.status).toBe(202);
    await r.vendors.waitFor("airtable", 1);
    expect((await r.deliveriesWhen((l) => l[0]?.status === "succeeded"))[0].id).toBe(failing.id);
  });
});

describe("conditions", () => {
  test("when on a destination and on a webhook: only matching submissions are sent", async () => {
    const r = await rig();
    const sales = await r.add("ntfy", { topic: "sales", baseUrl: r.vendors.url }, { when: [{ field: "topic", op: "equals", value: "Sales" }] });
    const urgent = await r.add(
      "ntfy",
      { topic: "urgent", baseUrl: r.vendors.url },
      {
        when: [
          { field: "tags", op: "in", value: ["urgent", "now"] },
          { field: "email", op: "notEmpty" },
        ],
      },
    );
    const hook = await r.api("POST", `/api/forms/${r.form.id}/webhooks`, {
      url: `${r.vendors.url}/hook`,
      when: [{ field: "message", op: "contains", value: "REFUND" }],
    });
    expect(hook.body.when).toEqual([{ field: "message", op: "contains", value: "REFUND" }]);
    const a = await r.post({ topic: " sales ", email: "ann@example.com", message: "hello" });
    const b = await r.post({ topic: "support", tags: ["later", "URGENT"], email: "bob@example.com", message: "I want a refund" });
    const c = await r.post({ topic: "support", tags: ["urgent"], email: "  ", message: "nothing" });
    const list = await r.deliveriesWhen((l) => l.length >= 3);
    const route = (d: any) => d.webhookId ?? d.destinationId;
    expect(list.map((d) => [d.submissionId, route(d)]).sort()).toEqual(
      [
        [a, sales.id],
        [b, urgent.id],
        [b, hook.body.id],
      ].sort(),
    );
    expect(list.some((d) => d.submissionId === c)).toBe(false);
  });

  test("notificationRoutes: the first route that matches, else notificationEmail", async () => {
    const r = await rig({ notificationEmail: "owner@example.com" }, { sender: false });
    const routed = await r.api("PATCH", `/api/forms/${r.form.id}`, {
      notificationRoutes: [
        { to: "sales@example.com", when: [{ field: "topic", op: "equals", value: "sales" }] },
        { to: "support@example.com", when: [{ field: "topic", op: "in", value: ["support", "help"] }] },
        { to: "second@example.com", when: [{ field: "topic", op: "equals", value: "SALES" }] },
      ],
    });
    expect(routed.body.notificationRoutes[0]).toEqual({ to: "sales@example.com", when: [{ field: "topic", op: "equals", value: "sales" }] });
    await r.post({ topic: "Sales" });
    await r.post({ topic: "help" });
    await r.post({ message: "no topic" });
    const rows = await r.t.services.store.db.select().from(notifications).where(eq(notifications.formId, r.form.id));
    expect(rows.map((n) => n.to)).toEqual(["sales@example.com", "support@example.com", "owner@example.com"]);
  });
});

describe("the API of destinations", () => {
  test("no answer holds a secret; PATCH keeps a secret not given; list, test and remove", async () => {
    const r = await rig({}, { sender: false });
    const key = r.vendors.serviceAccountKey();
    const made = await r.api("POST", `/api/forms/${r.form.id}/destinations`, {
      type: "google_sheets",
      config: { serviceAccountKey: key, spreadsheetId: VENDOR.sheets.spreadsheetId, sheet: VENDOR.sheets.sheet, baseUrl: r.vendors.url },
      fields: { email: "Email" },
      when: [{ field: "email", op: "notEmpty" }],
    });
    expect(made.status).toBe(201);
    expect(made.body).toEqual({
      id: expect.stringMatching(/^dst_/),
      formId: r.form.id,
      type: "google_sheets",
      config: { spreadsheetId: VENDOR.sheets.spreadsheetId, sheet: VENDOR.sheets.sheet, baseUrl: r.vendors.url },
      fields: { email: "Email" },
      when: [{ field: "email", op: "notEmpty" }],
      enabled: true,
      createdAt: expect.stringMatching(/Z$/),
    });
    const patched = await r.api("PATCH", `/api/forms/${r.form.id}/destinations/${made.body.id}`, {
      config: { spreadsheetId: VENDOR.sheets.spreadsheetId, sheet: VENDOR.sheets.sheet, baseUrl: r.vendors.url },
      enabled: false,
    });
    expect(patched.body.enabled).toBe(false);
    const listed = await r.api("GET", `/api/forms/${r.form.id}/destinations`);
    for (const text of [made.text, patched.text, listed.text]) {
      expect(text).not.toContain("PRIVATE KEY");
      expect(text).not.toContain("private_key");
    }
    // The key was kept: the test send gets a token with it.
    const tried = await r.api("POST", `/api/forms/${r.form.id}/destinations/${made.body.id}/test`);
    expect(tried.body).toEqual({ ok: true, responseStatus: 200, durationMs: expect.any(Number), error: null });
    expect(r.vendors.accepted.sheets[0].slice(1)).toEqual(["test@example.com"]);
    const activity = await r.api("GET", "/api/activity");
    expect(activity.text).not.toContain("PRIVATE KEY");
    expect(activity.body.activity.map((a: any) => a.action).slice(0, 2)).toEqual(["destination.update", "destination.create"]);
    expect((await r.api("DELETE", `/api/forms/${r.form.id}/destinations/${made.body.id}`)).status).toBe(204);
    expect((await r.api("GET", `/api/forms/${r.form.id}/destinations`)).body).toEqual({ destinations: [] });
  });

  test("a private address the destination would call is refused, naming its key", async () => {
    const r = await rig({}, { allowPrivate: false, sender: false });
    const cases = [
      [{ type: "ntfy", config: { topic: "t", baseUrl: "http://127.0.0.1:8080" } }, "config.baseUrl"],
      [{ type: "teams", config: { url: "http://10.0.0.5/workflows" } }, "config.url"],
      [
        {
          type: "google_sheets",
          config: { serviceAccountKey: { ...r.vendors.serviceAccountKey(), token_uri: "http://169.254.169.254/token" }, spreadsheetId: "x", sheet: "y" },
        },
        "config.serviceAccountKey.token_uri",
      ],
    ] as const;
    for (const [body, field] of cases) {
      const made = await r.api("POST", `/api/forms/${r.form.id}/destinations`, body);
      expect({ status: made.status, code: made.body.error.code, field: made.body.error.field }).toEqual({ status: 400, code: "invalid_parameter", field });
    }
    expect((await r.api("GET", `/api/forms/${r.form.id}/destinations`)).body).toEqual({ destinations: [] });
  });
});
