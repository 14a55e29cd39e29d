import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REFERENCE } from "../../src/forms-as-code/schema.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";

// A form's destinations in the forms file, against real servers and faithful Telegram and ntfy stand-ins: applied
// with their secrets from the environment (a post reaches Telegram with that token), planned, changed in place,
// removed when left out, pulled with references and no secret, and the pulled file applied to another instance.

const dir = mkdtempSync(join(tmpdir(), "formsvc-file-dest-"));
const TELEGRAM_KEY = `telegram:${VENDOR.telegram.chatId}`;
const NTFY_KEY = `ntfy:${VENDOR.ntfy.topic}`;
const env = { CONTACT_BOT_TOKEN: VENDOR.telegram.botToken, CONTACT_NTFY_TOKEN: VENDOR.ntfy.token };

interface Instance {
  server: ServerProcess;
  run(args: string[], env?: Record<string, string>): ReturnType<typeof runCli>;
  api(path: string): Promise<any>;
}

async function instance(): Promise<Instance> {
  const server = await startServerProcess({ args: ["--rate-limit", "0", "--webhooks-allow-private", "--webhook-retry-scale", "0.001"] });
  const key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  return {
    server,
    run: (args, extra = {}) => runCli(args, { env: { FORMSVC_URL: server.url, FORMSVC_KEY: key, ...extra } }),
    api: async (path) => (await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } })).json(),
  };
}

let vendors: Vendors;
let a: Instance;
let b: Instance;

const telegram = () => ({ type: "telegram", config: { botToken: `\${CONTACT_BOT_TOKEN}`, chatId: VENDOR.telegram.chatId, baseUrl: vendors.url } });
const ntfy = () => ({ type: "ntfy", config: { topic: VENDOR.ntfy.topic, token: `\${CONTACT_NTFY_TOKEN}`, baseUrl: vendors.url }, enabled: false });
const formsFile = (destinations: object[]) => ({ forms: { contact: { name: "Contact", destinations } } });
const write = (name: string, content: unknown) => {
  const path = join(dir, name);
  writeFileSync(path, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return path;
};
const destinationsOf = async (at: Instance) => (await at.api("/api/forms/contact/destinations")).destinations;
const NO_CHANGES = { code: 0, stdout: "", stderr: "No changes: the forms are as the file says.\n" };

beforeAll(async () => {
  vendors = startVendors();
  [a, b] = await Promise.all([instance(), instance()]);
}, 30_000);
afterAll(async () => {
  vendors.stop();
  await Promise.all([a.server.stop(), b.server.stop()]);
}, 30_000);

describe("destinations in the forms file", () => {
  test("apply makes them on an empty instance with the secrets of the environment, seen by the API and by Telegram; plan then exits 0", async () => {
    const path = write("formsvc.json", formsFile([telegram(), ntfy()]));
    const planned = await a.run(["plan", "-f", path], env);
    expect(planned.code).toBe(2);
    expect(planned.stdout).toContain(
      `+ contact.destinations[${TELEGRAM_KEY}]: {"type":"telegram","config":{"botToken":(sensitive),"chatId":"${VENDOR.telegram.chatId}","baseUrl":"${vendors.url}"}}\n`,
    );
    expect(planned.stdout).toContain(`+ contact.destinations[${NTFY_KEY}]: {"type":"ntfy","config":{"topic":"${VENDOR.ntfy.topic}","token":(sensitive),`);

    const unset = await a.run(["apply", "--yes", "-f", path], { CONTACT_BOT_TOKEN: VENDOR.telegram.botToken });
    expect(unset.code).toBe(1);
    expect(unset.stderr).toContain("not set in the environment: CONTACT_NTFY_TOKEN");

    const applied = await a.run(["apply", "--yes", "-f", path], env);
    expect(applied.code).toBe(0);
    expect(applied.stdout + applied.stderr).not.toContain(VENDOR.telegram.botToken);
    expect(await destinationsOf(a)).toEqual([
      expect.objectContaining({ type: "telegram", config: { chatId: VENDOR.telegram.chatId, baseUrl: vendors.url }, enabled: true, when: [], fields: null }),
      expect.objectContaining({ type: "ntfy", config: { topic: VENDOR.ntfy.topic, baseUrl: vendors.url }, enabled: false }),
    ]);
    // The stand-in takes a message only with the bot's own token: the one the environment gave.
    const posted = await fetch(`${a.server.url}/f/contact`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ email: "ada@example.com" }),
    });
    expect(posted.status).toBe(200);
    const [message] = await vendors.waitFor("telegram", 1);
    expect(message.chat_id).toBe(VENDOR.telegram.chatId);

    expect(await a.run(["plan", "-f", path], env)).toEqual(NO_CHANGES);
  });

  test("a changed destination shows as ~ with its secret (sensitive), and apply changes it in place", async () => {
    const [before] = await destinationsOf(a);
    const changed = { ...telegram(), fields: { email: "Email" } };
    const path = write("changed.json", formsFile([changed, ntfy()]));
    const planned = await a.run(["plan", "-f", path], env);
    expect(planned).toMatchObject({ code: 2 });
    expect(planned.stdout).toBe(
      `~ contact.destinations[${TELEGRAM_KEY}]: {"fields":null,"when":[],"enabled":true,"type":"telegram","config":{"chatId":"${VENDOR.telegram.chatId}","baseUrl":"${vendors.url}"}}` +
        ` → {"type":"telegram","config":{"botToken":(sensitive),"chatId":"${VENDOR.telegram.chatId}","baseUrl":"${vendors.url}"},"fields":{"email":"Email"}}\n`,
    );
    expect((await a.run(["apply", "--yes", "-f", path], env)).code).toBe(0);
    const [after] = await destinationsOf(a);
    expect(after).toEqual({ ...before, fields: { email: "Email" } });
    expect(await a.run(["plan", "-f", path], env)).toEqual(NO_CHANGES);
  });

  test("a destination left out of the file is a - line, and apply --prune removes it", async () => {
    const path = write("trimmed.json", formsFile([{ ...telegram(), fields: { email: "Email" } }]));
    const planned = await a.run(["plan", "-f", path], env);
    expect(planned).toMatchObject({ code: 2, stdout: `- contact.destinations[${NTFY_KEY}]\n` });
    expect((await a.run(["apply", "--prune", "--yes", "-f", path], env)).code).toBe(0);
    expect((await destinationsOf(a)).map((d: { type: string }) => d.type)).toEqual(["telegram"]);
    expect(await a.run(["plan", "--prune", "-f", path], env)).toEqual(NO_CHANGES);
  });

  test("pull writes each destination with a reference for its secret and no secret anywhere; the file makes another instance the same", async () => {
    expect((await a.run(["apply", "--yes", "-f", write("formsvc.json", formsFile([telegram(), ntfy()]))], env)).code).toBe(0);
    const pulled = await a.run(["pull"]);
    expect(pulled.code).toBe(0);
    for (const secret of Object.values(env)) expect(pulled.stdout).not.toContain(secret);
    expect(JSON.parse(pulled.stdout).forms.contact.destinations).toEqual([
      { type: "telegram", config: { chatId: VENDOR.telegram.chatId, baseUrl: vendors.url, botToken: `\${FORMSVC_CONTACT_DESTINATIONS_1_BOT_TOKEN}` } },
      { type: "ntfy", config: { topic: VENDOR.ntfy.topic, baseUrl: vendors.url, token: `\${FORMSVC_CONTACT_DESTINATIONS_2_TOKEN}` }, enabled: false },
    ]);
    const path = write("pulled.json", pulled.stdout);
    const secrets = { FORMSVC_CONTACT_DESTINATIONS_1_BOT_TOKEN: VENDOR.telegram.botToken, FORMSVC_CONTACT_DESTINATIONS_2_TOKEN: VENDOR.ntfy.token };
    expect((await b.run(["apply", "--yes", "-f", path], secrets)).code).toBe(0);
    expect(await b.run(["plan", "-f", path], secrets)).toEqual(NO_CHANGES);
    const shown = (list: Record<string, unknown>[]) => list.map(({ type, config, fields, when, enabled }) => ({ type, config, fields, when, enabled }));
    expect(shown(await destinationsOf(b))).toEqual(shown(await destinationsOf(a)));
  });

  test("a file that moves a destination's server but leaves its secret out is refused by apply: the saved token stays where it was", async () => {
    expect((await a.run(["apply", "--yes", "-f", write("formsvc.json", formsFile([telegram(), ntfy()]))], env)).code).toBe(0);
    const moved = { type: "ntfy", config: { topic: VENDOR.ntfy.topic, baseUrl: "http://127.0.0.1:9" }, enabled: false };
    const applied = await a.run(["apply", "--yes", "-f", write("moved.json", formsFile([telegram(), moved]))], env);
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain("config.token is required again when config.baseUrl changes");
    expect((await destinationsOf(a)).map((d: { config: unknown }) => d.config)).toEqual([
      { chatId: VENDOR.telegram.chatId, baseUrl: vendors.url },
      { topic: VENDOR.ntfy.topic, baseUrl: vendors.url },
    ]);
  });

  test("the served JSON Schema holds each destination type's secrets as write-only references", async () => {
    const schema = await (await fetch(`${a.server.url}/api/formsvc.schema.json`)).json();
    const types = schema.properties.forms.additionalProperties.properties.destinations.items.oneOf as any[];
    const config = (type: string) => types.find((candidate) => candidate.properties.type.const === type).properties.config.properties;
    for (const [type, key] of [
      ["telegram", "botToken"],
      ["ntfy", "token"],
      ["teams", "url"],
      ["google_sheets", "serviceAccountKey"],
      ["mailchimp", "apiKey"],
    ]) {
      const { pattern, writeOnly } = config(type!)[key!];
      expect({ at: `${type}.${key}`, pattern, writeOnly }).toEqual({ at: `${type}.${key}`, pattern: REFERENCE.source, writeOnly: true });
    }
    expect(config("telegram").chatId.writeOnly).toBeUndefined();
  });
});
