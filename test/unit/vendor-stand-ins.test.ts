import { afterAll, expect, test } from "bun:test";
import { createHash, generateKeyPairSync } from "node:crypto";
import { serviceAccountAssertion } from "../../src/services/outbox/senders/sheets.ts";
import { startVendors, VENDOR } from "../helpers/vendors.ts";

// The stand-ins of test/helpers/vendors.ts refuse what the real services refuse: a request that drifts from a
// vendor's documentation fails there, so the destination tests that pass through them cannot pass by accident.
const vendors = startVendors();
afterAll(() => vendors.stop());

const send = async (method: string, path: string, headers: Record<string, string>, body?: string) => {
  const answer = await fetch(`${vendors.url}${path}`, { method, headers, body });
  return { status: answer.status, body: await answer.text() };
};
const json = { "content-type": "application/json" };
const form = { "content-type": "application/x-www-form-urlencoded" };
const grant = (assertion: string) => new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString();

test("Google's token endpoint: the JWT's signature, audience and scope are checked; the append wants the token and RAW", async () => {
  const key = vendors.serviceAccountKey() as { client_email: string; private_key: string; private_key_id: string; token_uri: string };
  const now = Math.floor(Date.now() / 1000);
  const good = await send("POST", "/token", form, grant(serviceAccountAssertion(key, now)));
  expect(good.status).toBe(200);
  const other = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  expect((await send("POST", "/token", form, grant(serviceAccountAssertion({ ...key, private_key: other }, now)))).body).toContain("Invalid JWT Signature");
  expect(
    (await send("POST", "/token", form, grant(serviceAccountAssertion({ ...key, token_uri: "https://oauth2.googleapis.com/token" }, now)))).body,
  ).toContain("audience");
  expect((await send("POST", "/token", json, grant(serviceAccountAssertion(key, now)))).status).toBe(400);
  const token = (JSON.parse(good.body) as { access_token: string }).access_token;
  const append = (query: string, auth: string) =>
    send(
      "POST",
      `/v4/spreadsheets/${VENDOR.sheets.spreadsheetId}/values/${encodeURIComponent(`'${VENDOR.sheets.sheet}'`)}:append?${query}`,
      { ...json, authorization: auth },
      JSON.stringify({ values: [["a"]] }),
    );
  expect((await append("valueInputOption=RAW", `Bearer ${token}`)).status).toBe(200);
  expect((await append("valueInputOption=USER_ENTERED", `Bearer ${token}`)).status).toBe(400);
  expect((await append("valueInputOption=RAW", "Bearer ya29.forged")).status).toBe(401);
});

test("Notion: Notion-Version is required and must exist; a property of the wrong shape is refused", async () => {
  const auth = { authorization: `Bearer ${VENDOR.notion.token}` };
  expect((await send("GET", `/v1/databases/${VENDOR.notion.databaseId}`, auth)).body).toContain("missing_version");
  expect((await send("GET", `/v1/databases/${VENDOR.notion.databaseId}`, { ...auth, "notion-version": "2099-01-01" })).status).toBe(400);
  const page = (properties: unknown) =>
    send(
      "POST",
      "/v1/pages",
      { ...auth, ...json, "notion-version": "2022-06-28" },
      JSON.stringify({ parent: { database_id: VENDOR.notion.databaseId }, properties }),
    );
  expect((await page({ Name: { title: [{ text: { content: "Ann" } }] } })).status).toBe(200);
  expect((await page({ Name: { rich_text: [{ text: { content: "Ann" } }] } })).status).toBe(400);
  expect((await page({ Nowhere: { rich_text: [] } })).status).toBe(400);
});

test("Airtable, Mailchimp, Telegram, Teams and ntfy refuse what drifts", async () => {
  const airtable = (path: string, body: unknown) => send("POST", path, { ...json, authorization: `Bearer ${VENDOR.airtable.token}` }, JSON.stringify(body));
  expect((await airtable(`/v0/${VENDOR.airtable.baseId}/${VENDOR.airtable.table}`, { records: [{ fields: { Email: "a@b.c" } }] })).status).toBe(200);
  expect((await airtable(`/v0/${VENDOR.airtable.baseId}/${VENDOR.airtable.table}`, { records: [{ fields: { Unknown: "x" } }] })).status).toBe(422);
  expect((await airtable(`/v0/${VENDOR.airtable.table}`, { records: [] })).status).toBe(404);

  const basic = (key: string) => `Basic ${Buffer.from(`any:${key}`).toString("base64")}`;
  const member = (hash: string, key: string = VENDOR.mailchimp.apiKey) =>
    send(
      "PUT",
      `/3.0/lists/${VENDOR.mailchimp.audienceId}/members/${hash}`,
      { ...json, authorization: basic(key) },
      JSON.stringify({ email_address: "Ann@Example.com", status_if_new: "pending" }),
    );
  expect((await member(createHash("md5").update("ann@example.com").digest("hex"))).status).toBe(200);
  expect((await member(createHash("md5").update("Ann@Example.com").digest("hex"))).status).toBe(400);
  expect((await member(createHash("md5").update("ann@example.com").digest("hex"), "wrong-us1")).status).toBe(401);

  const telegram = (path: string, body: unknown) => send("POST", path, json, JSON.stringify(body));
  expect((await telegram(`/bot${VENDOR.telegram.botToken}/sendMessage`, { chat_id: VENDOR.telegram.chatId, text: "hi" })).status).toBe(200);
  expect((await telegram("/bot123:wrong/sendMessage", { chat_id: VENDOR.telegram.chatId, text: "hi" })).status).toBe(401);
  expect((await telegram(`/bot${VENDOR.telegram.botToken}/sendMessages`, { chat_id: VENDOR.telegram.chatId, text: "hi" })).status).toBe(404);
  expect((await telegram(`/bot${VENDOR.telegram.botToken}/sendMessage`, { chat_id: VENDOR.telegram.chatId, text: "" })).status).toBe(400);

  const card = (contentType: string) => ({
    type: "message",
    attachments: [{ contentType, content: { type: "AdaptiveCard", version: "1.4", body: [{ type: "TextBlock", text: "x" }] } }],
  });
  expect((await send("POST", VENDOR.teams.path, json, JSON.stringify(card("application/vnd.microsoft.card.adaptive")))).status).toBe(202);
  expect((await send("POST", VENDOR.teams.path, json, JSON.stringify(card("application/json")))).status).toBe(400);

  expect((await send("POST", `/${VENDOR.ntfy.topic}`, { title: "x" }, "hello")).status).toBe(403);
  expect((await send("POST", `/${VENDOR.ntfy.topic}`, { authorization: `Bearer ${VENDOR.ntfy.token}`, priority: "9" }, "hello")).status).toBe(400);
  expect((await send("POST", `/${VENDOR.ntfy.topic}`, { authorization: `Bearer ${VENDOR.ntfy.token}`, priority: "4" }, "hello")).status).toBe(200);
});
