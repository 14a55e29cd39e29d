import { afterEach, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { testApp, type TestApp } from "../helpers/app.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";

// A destination's secrets go only where they were given for (docs/api.md, "Destinations"): a writer who may change
// a destination but does not hold its token cannot point it at a host of their own and have the token sent there.
// Two principals on one server: the owner's admin key saves the token; a read+write key tries to redirect it to its
// own receiver, which records every request it gets.

const LOOPBACK = async () => [{ address: "127.0.0.1", family: 4 as const }];

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface World {
  t: TestApp;
  vendors: Vendors;
  form: { id: string };
  owner: string;
  writer: string;
  /** The writer's own host: every request it receives, with its Authorization header and path. */
  received: { path: string; authorization: string | null; body: string }[];
  receiver: string;
  as(key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
}

async function world(): Promise<World> {
  const t = await testApp({ webhooks: { allowPrivate: true, resolve: LOOPBACK } });
  cleanups.push(() => t.close());
  const vendors = startVendors();
  cleanups.push(() => vendors.stop());
  const received: World["received"] = [];
  const server = Bun.serve({
    port: 0,
    async fetch(request) {
      received.push({ path: new URL(request.url).pathname, authorization: request.headers.get("authorization"), body: await request.text() });
      return Response.json({ ok: true, access_token: "stolen", expires_in: 3600 });
    },
  });
  cleanups.push(() => server.stop(true));
  const account = await t.account();
  const owner = await account.key({ permissions: ["read", "write", "delete", "admin"] });
  const writer = await account.key({ permissions: ["read", "write"] });
  const form = await account.form();
  const as = async (key: string, method: string, path: string, body?: unknown) => {
    const response = await t.request(method, path, { key, body });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
  return { t, vendors, form, owner, writer, received, receiver: `http://127.0.0.1:${server.port}`, as };
}

const serviceAccountKey = (tokenUri: string) => ({
  client_email: "forms@project.iam.gserviceaccount.com",
  private_key: generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
  private_key_id: "k1",
  token_uri: tokenUri,
});

test("a read+write key cannot point an ntfy destination's saved token at its own server: 400 naming the token; with its own token, it may", async () => {
  const w = await world();
  const path = `/api/forms/${w.form.id}/destinations`;
  const made = await w.as(w.owner, "POST", path, { type: "ntfy", config: { topic: VENDOR.ntfy.topic, token: VENDOR.ntfy.token, baseUrl: w.vendors.url } });
  expect(made.status).toBe(201);
  const at = `${path}/${made.body.id}`;

  // The dashboard's "Server" field changed with the token left empty, as the API's PATCH.
  const redirected = await w.as(w.writer, "PATCH", at, { config: { topic: VENDOR.ntfy.topic, baseUrl: w.receiver } });
  expect({ status: redirected.status, error: redirected.body.error }).toEqual({
    status: 400,
    error: {
      code: "invalid_body",
      message: "config.token is required again when config.baseUrl changes: a saved secret is sent only where it was given for.",
      field: "config.token",
    },
  });
  // Left out, the address counts as a change too: the saved token would go to ntfy.sh.
  expect((await w.as(w.writer, "PATCH", at, { config: { topic: VENDOR.ntfy.topic } })).body.error.field).toBe("config.token");

  // Nothing changed: a test still goes to the owner's server with the owner's token, and the writer's host saw nothing.
  expect((await w.as(w.writer, "POST", `${at}/test`)).body).toMatchObject({ ok: true });
  expect(w.vendors.accepted.ntfy).toHaveLength(1);
  expect(w.received).toEqual([]);

  // A change that leaves the address alone still keeps the token.
  expect((await w.as(w.writer, "PATCH", at, { config: { topic: VENDOR.ntfy.topic, baseUrl: w.vendors.url, priority: 4 } })).status).toBe(200);
  expect((await w.as(w.writer, "POST", `${at}/test`)).body).toMatchObject({ ok: true });

  // With a token of its own, the writer may send the destination anywhere: that token is what its host gets.
  const own = await w.as(w.writer, "PATCH", at, { config: { topic: VENDOR.ntfy.topic, token: "tk_writers_own", baseUrl: w.receiver } });
  expect(own.status).toBe(200);
  await w.as(w.writer, "POST", `${at}/test`);
  expect(w.received.map((r) => r.authorization)).toEqual(["Bearer tk_writers_own"]);
});

test("telegram's bot token and a Sheets key are not sent to a new baseUrl either; the owner's settings are untouched", async () => {
  const w = await world();
  const path = `/api/forms/${w.form.id}/destinations`;
  const telegram = await w.as(w.owner, "POST", path, {
    type: "telegram",
    config: { botToken: VENDOR.telegram.botToken, chatId: VENDOR.telegram.chatId, baseUrl: w.vendors.url },
  });
  const sheets = await w.as(w.owner, "POST", path, {
    type: "google_sheets",
    config: { serviceAccountKey: serviceAccountKey(`${w.vendors.url}/token`), spreadsheetId: "s1", sheet: "Leads" },
  });
  expect([telegram.status, sheets.status]).toEqual([201, 201]);

  const toTelegram = await w.as(w.writer, "PATCH", `${path}/${telegram.body.id}`, { config: { chatId: VENDOR.telegram.chatId, baseUrl: w.receiver } });
  expect([toTelegram.status, toTelegram.body.error.field]).toEqual([400, "config.botToken"]);
  const toSheets = await w.as(w.writer, "PATCH", `${path}/${sheets.body.id}`, { config: { spreadsheetId: "s1", sheet: "Leads", baseUrl: w.receiver } });
  expect([toSheets.status, toSheets.body.error.field]).toEqual([400, "config.serviceAccountKey"]);

  await w.as(w.writer, "POST", `${path}/${telegram.body.id}/test`);
  await w.as(w.writer, "POST", `${path}/${sheets.body.id}/test`);
  expect(w.received).toEqual([]);
  expect((await w.as(w.owner, "GET", path)).body.destinations.map((d: { config: unknown }) => d.config)).toEqual([
    { chatId: VENDOR.telegram.chatId, baseUrl: w.vendors.url },
    { spreadsheetId: "s1", sheet: "Leads" },
  ]);
});
