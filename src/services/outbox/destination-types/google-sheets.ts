// Google Sheets: a row appended with values:append and valueInputOption=RAW (a value starting with = stays text),
// with an access token the service account's key obtains (senders/sheets.ts).
import { mappedEntries, outcome, valueText, vendorMessage, vendorUrl } from "../senders/common.ts";
import { accessToken, forgetToken, type ServiceAccountKey } from "../senders/sheets.ts";
import { destinationKind, text } from "./kind.ts";
import type { Zod } from "../../../lib/validate.ts";

/** The key file's JSON, as an object or as its text: the fields formsvc uses, its token_uri an http(s) address. */
const serviceAccountKey = (z: Zod) =>
  z
    .union([z.string(), z.record(z.string(), z.unknown())], { error: "config.serviceAccountKey must be the key file's JSON, as an object or as its text." })
    .transform((value, ctx) => {
      let key: unknown = value;
      if (typeof value === "string") {
        try {
          key = JSON.parse(value);
        } catch {
          key = null;
        }
      }
      const k = key as Partial<ServiceAccountKey> | null;
      if (!k || typeof k !== "object" || typeof k.client_email !== "string" || typeof k.private_key !== "string" || typeof k.token_uri !== "string") {
        ctx.addIssue({
          code: "custom",
          message: "config.serviceAccountKey must be a service account's key file (with client_email, private_key and token_uri).",
        });
        return z.NEVER;
      }
      if (!/^https?:\/\//i.test(k.token_uri) || !URL.canParse(k.token_uri)) {
        ctx.addIssue({ code: "custom", message: "config.serviceAccountKey's token_uri must be an absolute http(s) address." });
        return z.NEVER;
      }
      return { client_email: k.client_email, private_key: k.private_key, private_key_id: k.private_key_id, token_uri: k.token_uri } as ServiceAccountKey;
    });

/**
 * The sheet's name as an A1 range: as it is when plain (`Sheet1`), else quoted with its quotes doubled
 * (`'Leads 2026'`), and quoted too when it would read as a cell (`'A1'`).
 */
function sheetRange(sheet: string): string {
  return /^[A-Za-z0-9_]+$/.test(sheet) && !/^[A-Za-z]{1,3}\d+$/.test(sheet) ? sheet : `'${sheet.replace(/'/g, "''")}'`;
}

/** A sheet (tab) of a Google spreadsheet shared with a service account. */
export const googleSheets = destinationKind({
  type: "google_sheets",
  title: "Google Sheets",
  schema: (z) =>
    z.strictObject({ serviceAccountKey: serviceAccountKey(z), spreadsheetId: text(z, "config.spreadsheetId"), sheet: text(z, "config.sheet", 100) }),
  secrets: ["serviceAccountKey"],
  targets: ["spreadsheetId", "sheet"],
  vendorBase: "https://sheets.googleapis.com",
  addresses: (config) => [{ key: "config.serviceAccountKey.token_uri", url: config.serviceAccountKey.token_uri }],
  inputs: [
    { key: "serviceAccountKey", label: "Service account key (the key file's JSON)", kind: "multiline" },
    { key: "spreadsheetId", label: "Spreadsheet id (from its address)" },
    { key: "sheet", label: "Sheet (tab) name", placeholder: "Sheet1" },
  ],
  /** Appends the submission as a row: its time, then its fields (in the order of `fields` when given). */
  async send(context) {
    const config = context.target.config;
    const key = config.serviceAccountKey;
    const got = await accessToken(context, key);
    if ("failed" in got) return got.failed;
    const { submission } = context.event.data;
    const row = [submission.createdAt, ...mappedEntries(submission.data, context.target.fields).map(([, value]) => valueText(value))];
    const range = encodeURIComponent(sheetRange(config.sheet));
    const path = `/v4/spreadsheets/${encodeURIComponent(config.spreadsheetId)}/values/${range}:append?valueInputOption=RAW&insertDataOption=INSERT_ROWS`;
    const answer = await context.call(vendorUrl(googleSheets.vendorBase!, config, path), {
      method: "POST",
      headers: { authorization: `Bearer ${got.token}`, "content-type": "application/json", "user-agent": context.userAgent },
      body: JSON.stringify({ majorDimension: "ROWS", values: [row] }),
    });
    if (answer.status === 401) forgetToken(context, key);
    return outcome(answer, (status) => {
      const message = vendorMessage(answer) ?? "";
      if (status === 401) return "Sheets: Google refused the access token (401); the next attempt asks for a new one.";
      if (status === 403 && /has not been used|disabled/i.test(message)) {
        return "Sheets: the Google Sheets API is off in the service account's project: enable it in the Google Cloud console.";
      }
      if (status === 403) return `Sheets: the service account cannot edit this spreadsheet: share it with ${key.client_email} as an editor.`;
      if (status === 404) return `Sheets: no spreadsheet ${config.spreadsheetId} (404).`;
      if (status === 400 && /parse range/i.test(message)) return `Sheets: the spreadsheet has no sheet named "${config.sheet}" (400).`;
      return status === 429
        ? "Sheets: Google's rate limit (429); tried again later."
        : `Sheets: Google refused the row (${status}${message ? `: ${message}` : ""}).`;
    });
  },
});
