// Small faithful stand-ins of the services destinations send to, on 127.0.0.1 (port 0). Each checks what the
// real service checks, as its API reference says, and answers a request that drifts from it as the service
// would (its status and error body): Google's token endpoint (the JWT's signature, claims and audience) and
// values:append (the token, RAW), Airtable's records, Notion's databases and pages (Notion-Version, property
// shapes by type), Mailchimp's members (basic auth, the MD5 of the lowercased address), Telegram's
// sendMessage, a Teams Workflows webhook (the Adaptive Card's shape, 202) and ntfy's publish (its headers).
import { createHash, generateKeyPairSync, verify } from "node:crypto";

export interface VendorCall {
  method: string;
  path: string;
  query: string;
  headers: Record<string, string>;
  body: string;
}

/** What each stand-in accepts: the secrets, ids and names a real account would hold. */
export const VENDOR = {
  airtable: { token: "patFaithful.0123456789", baseId: "appFaithful01", table: "Leads", fields: ["Email", "Name", "message", "email", "name", "topic"] },
  notion: {
    token: "ntn_faithful_0123456789",
    databaseId: "0f3a8c2e4b6d4e8fa1c3e5b7d9f1a2c4",
    properties: {
      Name: "title",
      email: "email",
      message: "rich_text",
      count: "number",
      topic: "select",
      agree: "checkbox",
      Assignee: "people",
    } as Record<string, string>,
  },
  mailchimp: { apiKey: "0123456789abcdef0123456789abcdef-us21", audienceId: "a1b2c3d4e5", mergeTags: ["FNAME", "LNAME", "PHONE"] },
  telegram: { botToken: "123456789:AAFaithfulTokenForTests_0123456789", chatId: "-1001234567890" },
  teams: { path: "/workflows/5e2c/triggers/manual/paths/invoke" },
  ntfy: { topic: "formsvc-faithful", token: "tk_faithful0123456789abcdefghij" },
  sheets: { spreadsheetId: "1FaithfulSpreadsheetId_0123456789", sheet: "Leads", sharedWith: "formsvc@faithful-project.iam.gserviceaccount.com" },
} as const;

/** The versions of the Notion API that exist; any other Notion-Version is refused. */
const NOTION_VERSIONS = new Set(["2021-05-13", "2021-08-16", "2022-02-22", "2022-06-28", "2025-09-03"]);
const ADAPTIVE_ELEMENTS = new Set(["TextBlock", "FactSet", "Image", "Container", "ColumnSet", "RichTextBlock", "ActionSet"]);

const json = (status: number, body: unknown) => Response.json(body, { status });

export interface Vendors {
  url: string;
  calls: VendorCall[];
  /** The rows appended to the sheet, the records, pages, members, messages, cards and notifications accepted. */
  accepted: Record<"sheets" | "airtable" | "notion" | "mailchimp" | "telegram" | "teams" | "ntfy", any[]>;
  /** Tokens Google's stand-in granted. */
  tokensGranted: number;
  /** A service account key whose token_uri is this stand-in's, signed by a key pair made for the test. */
  serviceAccountKey(clientEmail?: string): Record<string, string>;
  /** Fails the next `n` requests to paths starting with `prefix` with a 503. */
  failNext(prefix: string, n: number): void;
  waitFor(kind: keyof Vendors["accepted"], count: number, ms?: number): Promise<any[]>;
  stop(): void;
}

/** Starts every stand-in on one loopback server (each vendor's path is its own). */
export function startVendors(): Vendors {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: "pkcs8", format: "pem" }).toString();
  const keyId = "faithful-key-1";
  const issued = new Set<string>();
  const failures: { prefix: string; left: number }[] = [];
  const calls: VendorCall[] = [];
  const accepted: Vendors["accepted"] = { sheets: [], airtable: [], notion: [], mailchimp: [], telegram: [], teams: [], ntfy: [] };
  const waiters: (() => void)[] = [];
  let url = "";
  const state = { tokensGranted: 0 };

  function google(path: string, call: VendorCall): Response {
    if (path === "/token") {
      if (call.method !== "POST" || !call.headers["content-type"]?.startsWith("application/x-www-form-urlencoded")) {
        return json(400, { error: "invalid_request", error_description: "Bad Request" });
      }
      const form = new URLSearchParams(call.body);
      if (form.get("grant_type") !== "urn:ietf:params:oauth:grant-type:jwt-bearer")
        return json(400, { error: "unsupported_grant_type", error_description: "Invalid grant_type" });
      const parts = (form.get("assertion") ?? "").split(".");
      if (parts.length !== 3) return json(400, { error: "invalid_grant", error_description: "Invalid JWT" });
      const [h, c, s] = parts as [string, string, string];
      const header = JSON.parse(Buffer.from(h, "base64url").toString());
      const claims = JSON.parse(Buffer.from(c, "base64url").toString());
      if (header.alg !== "RS256" || header.typ !== "JWT" || (header.kid !== undefined && header.kid !== keyId))
        return json(400, { error: "invalid_grant", error_description: "Invalid JWT header" });
      if (!verify("RSA-SHA256", Buffer.from(`${h}.${c}`), publicKey, Buffer.from(s, "base64url"))) {
        return json(400, { error: "invalid_grant", error_description: "Invalid JWT Signature." });
      }
      const now = Math.floor(Date.now() / 1000);
      if (claims.aud !== `${url}/token`) return json(400, { error: "invalid_grant", error_description: "Invalid JWT: audience" });
      if (typeof claims.iss !== "string" || !claims.iss.endsWith(".iam.gserviceaccount.com"))
        return json(401, { error: "invalid_client", error_description: "The OAuth client was not found." });
      if (
        !String(claims.scope ?? "")
          .split(" ")
          .includes("https://www.googleapis.com/auth/spreadsheets")
      )
        return json(400, { error: "invalid_scope", error_description: "Invalid OAuth scope" });
      if (!(claims.iat <= now + 5 && claims.exp > now && claims.exp - claims.iat <= 3600))
        return json(400, { error: "invalid_grant", error_description: "Invalid JWT: Token must be a short-lived token" });
      const token = `ya29.faithful-${issued.size}-${claims.iss}`;
      issued.add(token);
      state.tokensGranted++;
      return json(200, { access_token: token, expires_in: 3599, token_type: "Bearer" });
    }
    const match = /^\/v4\/spreadsheets\/([^/]+)\/values\/([^/]+):append$/.exec(path);
    if (!match || call.method !== "POST") return json(404, { error: { code: 404, message: "Not found", status: "NOT_FOUND" } });
    const token = /^Bearer (.+)$/.exec(call.headers.authorization ?? "")?.[1];
    if (!token || !issued.has(token))
      return json(401, { error: { code: 401, message: "Request had invalid authentication credentials.", status: "UNAUTHENTICATED" } });
    const query = new URLSearchParams(call.query);
    if (query.get("valueInputOption") !== "RAW") return json(400, { error: { code: 400, message: "Invalid valueInputOption", status: "INVALID_ARGUMENT" } });
    if (decodeURIComponent(match[1]!) !== VENDOR.sheets.spreadsheetId)
      return json(404, { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } });
    if (!token.endsWith(VENDOR.sheets.sharedWith))
      return json(403, { error: { code: 403, message: "The caller does not have permission", status: "PERMISSION_DENIED" } });
    const range = decodeURIComponent(match[2]!);
    const sheet = range.startsWith("'") ? range.slice(1, range.lastIndexOf("'")).replace(/''/g, "'") : range.split("!")[0];
    if (sheet !== VENDOR.sheets.sheet) return json(400, { error: { code: 400, message: `Unable to parse range: ${range}`, status: "INVALID_ARGUMENT" } });
    const body = JSON.parse(call.body);
    if (!Array.isArray(body.values) || !body.values.every((row: unknown) => Array.isArray(row)))
      return json(400, { error: { code: 400, message: "Invalid values", status: "INVALID_ARGUMENT" } });
    accepted.sheets.push(...body.values);
    return json(200, { spreadsheetId: VENDOR.sheets.spreadsheetId, updates: { updatedRows: body.values.length } });
  }

  function airtable(path: string, call: VendorCall): Response {
    if (call.headers.authorization !== `Bearer ${VENDOR.airtable.token}`)
      return json(401, { error: { type: "AUTHENTICATION_REQUIRED", message: "Authentication required" } });
    const [, , base, table] = path.split("/").map(decodeURIComponent);
    if (call.method !== "POST" || base !== VENDOR.airtable.baseId || table !== VENDOR.airtable.table || path.split("/").length !== 4) {
      return json(404, { error: "NOT_FOUND" });
    }
    if (!call.headers["content-type"]?.startsWith("application/json"))
      return json(415, { error: { type: "INVALID_REQUEST_UNKNOWN", message: "Invalid request" } });
    const body = JSON.parse(call.body);
    const records = Array.isArray(body.records) ? body.records : body.fields ? [{ fields: body.fields }] : null;
    if (!records || records.length > 10) return json(422, { error: { type: "INVALID_REQUEST_MISSING_FIELDS", message: 'Could not find field "fields"' } });
    for (const record of records) {
      for (const name of Object.keys(record.fields ?? {})) {
        if (!(VENDOR.airtable.fields as readonly string[]).includes(name))
          return json(422, { error: { type: "UNKNOWN_FIELD_NAME", message: `Unknown field name: "${name}"` } });
      }
    }
    accepted.airtable.push(...records.map((r: { fields: unknown }) => r.fields));
    return json(200, {
      records: records.map((r: { fields: unknown }, i: number) => ({ id: `recFaithful${i}`, createdTime: new Date().toISOString(), fields: r.fields })),
    });
  }

  function notionShape(type: string, value: any): boolean {
    const text = (list: any) => Array.isArray(list) && list.every((t) => typeof t?.text?.content === "string" && t.text.content.length <= 2000);
    switch (type) {
      case "title":
        return text(value.title);
      case "rich_text":
        return text(value.rich_text);
      case "number":
        return typeof value.number === "number" || value.number === null;
      case "select":
        return typeof value.select?.name === "string" && !value.select.name.includes(",");
      case "checkbox":
        return typeof value.checkbox === "boolean";
      case "email":
        return typeof value.email === "string" || value.email === null;
      default:
        return false;
    }
  }

  function notion(path: string, call: VendorCall): Response {
    const version = call.headers["notion-version"];
    if (!version)
      return json(400, {
        object: "error",
        status: 400,
        code: "missing_version",
        message: "Notion-Version header failed validation: Notion-Version header should be defined.",
      });
    if (!NOTION_VERSIONS.has(version))
      return json(400, { object: "error", status: 400, code: "invalid_request", message: `Invalid Notion-Version ${version}` });
    if (call.headers.authorization !== `Bearer ${VENDOR.notion.token}`)
      return json(401, { object: "error", status: 401, code: "unauthorized", message: "API token is invalid." });
    const database = /^\/v1\/databases\/([^/]+)$/.exec(path);
    if (database && call.method === "GET") {
      if (database[1] !== VENDOR.notion.databaseId)
        return json(404, { object: "error", status: 404, code: "object_not_found", message: "Could not find database." });
      const properties = Object.fromEntries(
        Object.entries(VENDOR.notion.properties).map(([name, type]) => [name, { id: name.slice(0, 4), name, type, [type]: {} }]),
      );
      return json(200, { object: "database", id: VENDOR.notion.databaseId, properties });
    }
    if (path !== "/v1/pages" || call.method !== "POST")
      return json(400, { object: "error", status: 400, code: "invalid_request_url", message: "Invalid request URL." });
    const body = JSON.parse(call.body);
    if (body.parent?.database_id !== VENDOR.notion.databaseId)
      return json(404, { object: "error", status: 404, code: "object_not_found", message: "Could not find database." });
    for (const [name, value] of Object.entries(body.properties ?? {})) {
      const type = VENDOR.notion.properties[name];
      if (!type) return json(400, { object: "error", status: 400, code: "validation_error", message: `${name} is not a property that exists.` });
      if (!notionShape(type, value))
        return json(400, { object: "error", status: 400, code: "validation_error", message: `body.properties.${name}.${type} should be defined.` });
    }
    accepted.notion.push(body.properties);
    return json(200, { object: "page", id: "5c6a2821-6bb1-4a7e-b6e1-c50111515c3d", properties: body.properties });
  }

  function mailchimp(path: string, call: VendorCall): Response {
    const [user, key] = Buffer.from(/^Basic (.+)$/.exec(call.headers.authorization ?? "")?.[1] ?? "", "base64")
      .toString()
      .split(":");
    if (!user || key !== VENDOR.mailchimp.apiKey)
      return json(401, { title: "API Key Invalid", status: 401, detail: "Your API key may be invalid, or you've attempted to access the wrong datacenter." });
    const match = /^\/3\.0\/lists\/([^/]+)\/members\/([0-9a-f]{32})$/.exec(path);
    if (!match || call.method !== "PUT")
      return json(405, { title: "Method Not Allowed", status: 405, detail: "The requested method and resource are not compatible." });
    if (match[1] !== VENDOR.mailchimp.audienceId)
      return json(404, { title: "Resource Not Found", status: 404, detail: "The requested resource could not be found." });
    const body = JSON.parse(call.body);
    const hash = createHash("md5").update(String(body.email_address).toLowerCase()).digest("hex");
    if (hash !== match[2]) return json(400, { title: "Invalid Resource", status: 400, detail: "The subscriber hash does not match the email address." });
    if (!["subscribed", "pending", "unsubscribed", "cleaned", "transactional"].includes(body.status_if_new ?? body.status)) {
      return json(400, { title: "Invalid Resource", status: 400, detail: "The resource submitted could not be validated." });
    }
    for (const tag of Object.keys(body.merge_fields ?? {})) {
      if (!(VENDOR.mailchimp.mergeTags as readonly string[]).includes(tag))
        return json(400, { title: "Invalid Resource", status: 400, detail: `Your merge fields were invalid: ${tag}.` });
    }
    accepted.mailchimp.push(body);
    return json(200, { id: hash, email_address: body.email_address, status: body.status_if_new });
  }

  function telegram(path: string, call: VendorCall): Response {
    // The Bot API's method names are case-insensitive; an unknown one is 404, a wrong token 401.
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(path);
    if (!match || match[1] !== VENDOR.telegram.botToken) return json(401, { ok: false, error_code: 401, description: "Unauthorized" });
    if (match[2]!.toLowerCase() !== "sendmessage") return json(404, { ok: false, error_code: 404, description: "Not Found" });
    const body = JSON.parse(call.body || "{}");
    if (String(body.chat_id) !== VENDOR.telegram.chatId) return json(400, { ok: false, error_code: 400, description: "Bad Request: chat not found" });
    if (typeof body.text !== "string" || body.text.length === 0 || body.text.length > 4096)
      return json(400, { ok: false, error_code: 400, description: "Bad Request: message text is empty" });
    if (body.parse_mode !== undefined) return json(400, { ok: false, error_code: 400, description: "Bad Request: can't parse entities" });
    accepted.telegram.push(body);
    return json(200, { ok: true, result: { message_id: accepted.telegram.length, chat: { id: Number(body.chat_id) }, text: body.text } });
  }

  function teams(call: VendorCall): Response {
    const body = JSON.parse(call.body || "{}");
    const card = body.attachments?.[0];
    const content = card?.content;
    const ok =
      body.type === "message" &&
      Array.isArray(body.attachments) &&
      card.contentType === "application/vnd.microsoft.card.adaptive" &&
      content?.type === "AdaptiveCard" &&
      /^1\.[0-5]$/.test(content.version) &&
      Array.isArray(content.body) &&
      content.body.every((element: any) => ADAPTIVE_ELEMENTS.has(element.type)) &&
      content.body
        .filter((e: any) => e.type === "FactSet")
        .every((e: any) => e.facts.every((f: any) => typeof f.title === "string" && typeof f.value === "string"));
    if (!ok)
      return json(400, {
        error: { code: "TriggerInputSchemaMismatch", message: "The input body for trigger 'manual' of type 'Request' did not match its schema definition." },
      });
    accepted.teams.push(content);
    return new Response(null, { status: 202 });
  }

  function ntfy(path: string, call: VendorCall): Response {
    const topic = path.slice(1);
    if (call.method !== "POST" && call.method !== "PUT") return json(405, { code: 40501, http: 405, error: "method not allowed" });
    if (!/^[-_A-Za-z0-9]{1,64}$/.test(topic)) return json(400, { code: 40009, http: 400, error: "invalid topic name" });
    if (topic === VENDOR.ntfy.topic && call.headers.authorization !== `Bearer ${VENDOR.ntfy.token}`)
      return json(403, { code: 40301, http: 403, error: "forbidden" });
    const priority = call.headers.priority ?? call.headers["x-priority"];
    if (priority !== undefined && !/^[1-5]$/.test(priority)) return json(400, { code: 40007, http: 400, error: "invalid priority" });
    const title = call.headers.title ?? call.headers["x-title"];
    accepted.ntfy.push({ topic, message: call.body, title, tags: call.headers.tags ?? call.headers["x-tags"], priority });
    return json(200, { id: "faithful1", time: Math.floor(Date.now() / 1000), event: "message", topic, message: call.body, title });
  }

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const address = new URL(request.url);
      const call: VendorCall = {
        method: request.method,
        path: address.pathname,
        query: address.search.slice(1),
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      calls.push(call);
      const failing = failures.find((f) => call.path.startsWith(f.prefix) && f.left > 0);
      let response: Response;
      if (failing) {
        failing.left--;
        response = json(503, { error: "temporarily unavailable" });
      } else if (call.path === "/token" || call.path.startsWith("/v4/")) response = google(call.path, call);
      else if (call.path.startsWith("/v0/")) response = airtable(call.path, call);
      else if (call.path.startsWith("/v1/")) response = notion(call.path, call);
      else if (call.path.startsWith("/3.0/")) response = mailchimp(call.path, call);
      else if (call.path.startsWith("/bot")) response = telegram(call.path, call);
      else if (call.path === VENDOR.teams.path) response = teams(call);
      else response = ntfy(call.path, call);
      for (const wake of waiters.splice(0)) wake();
      return response;
    },
  });
  url = `http://127.0.0.1:${server.port}`;
  return {
    url,
    calls,
    accepted,
    get tokensGranted() {
      return state.tokensGranted;
    },
    serviceAccountKey(clientEmail: string = VENDOR.sheets.sharedWith) {
      return {
        type: "service_account",
        project_id: "faithful-project",
        private_key_id: keyId,
        private_key: privatePem,
        client_email: clientEmail,
        client_id: "109876543210987654321",
        auth_uri: "https://accounts.google.com/o/oauth2/auth",
        token_uri: `${url}/token`,
      };
    },
    failNext(prefix, n) {
      failures.push({ prefix, left: n });
    },
    async waitFor(kind, count, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (accepted[kind].length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`${kind} accepted ${accepted[kind].length} of ${count} within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return accepted[kind];
    },
    stop() {
      server.stop(true);
    },
  };
}
