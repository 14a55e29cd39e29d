// The destinations whose API is one request: Airtable (a record), Mailchimp (a member), Telegram (a message),
// Teams (an Adaptive Card to a Workflows webhook) and ntfy (a notification). Plain requests through the
// outbox's guarded client: the vendors' SDKs (airtable, @mailchimp/mailchimp_marketing) are larger than the
// one call each makes, are not all kept up, and would connect past the check of private addresses.
import { createHash } from "node:crypto";
import { defang } from "../../../lib/confirmation-text.ts";
import { isEmail } from "../../../lib/validate.ts";
import type { AttemptResult } from "../deliveries.ts";
import { MAILCHIMP_KEY, VENDOR_BASES } from "../destination-types.ts";
import { mappedEntries, outcome, plainText, refusedBefore, type SendContext, valueText, vendorMessage, vendorUrl } from "./common.ts";

const json = (context: SendContext, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  "user-agent": context.userAgent,
  ...extra,
});
const withMessage = (text: string, message: string | null) => (message ? `${text}: ${message}` : text);

/** Airtable: a record created in the table (POST /v0/{baseId}/{table}), typecast so that a select takes a new option. */
export async function sendToAirtable(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { token: string; baseId: string; table: string };
  const fields = Object.fromEntries(mappedEntries(context.event.data.submission.data, context.target.fields).map(([name, value]) => [name, valueText(value)]));
  const path = `/v0/${encodeURIComponent(config.baseId)}/${encodeURIComponent(config.table)}`;
  const answer = await context.call(vendorUrl(VENDOR_BASES.airtable, config, path), {
    method: "POST",
    headers: json(context, { authorization: `Bearer ${config.token}` }),
    body: JSON.stringify({ records: [{ fields }], typecast: true }),
  });
  return outcome(answer, (status) => {
    if (status === 401) return "Airtable refused the token (401).";
    if (status === 403 || status === 404) {
      return `Airtable: the token cannot write to table "${config.table}" of base ${config.baseId} (${status}): give it the data.records:write scope and this base.`;
    }
    if (status === 422) return withMessage("Airtable refused the record (422)", vendorMessage(answer));
    return status === 429 ? "Airtable's rate limit (429); tried again later." : `Airtable answered ${status}.`;
  });
}

/** Mailchimp: the member put by the lowercased address's MD5, new ones with the chosen status (pending: Mailchimp's own opt-in). */
export async function sendToMailchimp(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { apiKey: string; audienceId: string; status: string; emailField?: string };
  const data = context.event.data.submission.data;
  const emailField = config.emailField ?? "email";
  const email = valueText(data[emailField]).trim();
  if (!isEmail(email)) return refusedBefore(`Mailchimp: the submission's ${emailField} field holds no email address, so there is no one to add.`, true);
  const dc = MAILCHIMP_KEY.exec(config.apiKey)?.[1] ?? "us1";
  const hash = createHash("md5").update(email.toLowerCase()).digest("hex");
  const merge = Object.fromEntries(
    Object.entries(context.target.fields ?? {}).flatMap(([field, tag]) => (Object.hasOwn(data, field) ? [[tag, valueText(data[field])]] : [])),
  );
  const body = { email_address: email, status_if_new: config.status, ...(Object.keys(merge).length ? { merge_fields: merge } : {}) };
  const path = `/3.0/lists/${encodeURIComponent(config.audienceId)}/members/${hash}`;
  const answer = await context.call(vendorUrl(VENDOR_BASES.mailchimp.replace("{dc}", dc), config, path), {
    method: "PUT",
    headers: json(context, { authorization: `Basic ${Buffer.from(`formsvc:${config.apiKey}`).toString("base64")}` }),
    body: JSON.stringify(body),
  });
  return outcome(answer, (status) => {
    if (status === 401 || status === 403) return `Mailchimp refused the API key (${status}).`;
    if (status === 404) return `Mailchimp: no audience ${config.audienceId} (404).`;
    if (status === 400) return withMessage("Mailchimp refused the member (400)", vendorMessage(answer));
    return `Mailchimp answered ${status}.`;
  });
}

/** Telegram: a plain-text message (sendMessage) to the chat, without link previews. */
export async function sendToTelegram(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { botToken: string; chatId: string };
  const text = plainText(context.event, mappedEntries(context.event.data.submission.data, context.target.fields), 4096);
  // The token is part of the path, as Telegram's Bot API has it: the address is never logged.
  const answer = await context.call(vendorUrl(VENDOR_BASES.telegram, config, `/bot${config.botToken}/sendMessage`), {
    method: "POST",
    headers: json(context),
    body: JSON.stringify({ chat_id: config.chatId, text, link_preview_options: { is_disabled: true } }),
  });
  return outcome(answer, (status) => {
    if (status === 401 || status === 404) return `Telegram refused the bot token (${status}).`;
    if (status === 400 && /chat not found/i.test(answer.text))
      return `Telegram: chat ${config.chatId} not found (400): add the bot to the chat, or start a chat with it.`;
    if (status === 403) return `Telegram: the bot may not write to chat ${config.chatId} (403): it was blocked or removed.`;
    return withMessage(`Telegram answered ${status}`, vendorMessage(answer));
  });
}

/** The Adaptive Card of a submission: its form as the title, its fields as facts (links defanged: nothing submitted is clickable). */
export function adaptiveCard(context: SendContext): unknown {
  const { form, submission } = context.event.data;
  const facts = mappedEntries(submission.data, context.target.fields).map(([name, value]) => ({
    title: defang(name).slice(0, 200),
    value: defang(valueText(value)).slice(0, 2000),
  }));
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body: [
            { type: "TextBlock", text: `New submission to ${defang(form.name)}`, weight: "Bolder", size: "Medium", wrap: true },
            { type: "FactSet", facts },
          ],
        },
      },
    ],
  };
}

/** Teams: the Adaptive Card POSTed to the Workflows webhook's address (202 Accepted is its success). */
export async function sendToTeams(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { url: string };
  const answer = await context.call(config.url, { method: "POST", headers: json(context), body: JSON.stringify(adaptiveCard(context)) });
  return outcome(answer, (status) => {
    if (status === 401 || status === 403 || status === 404)
      return `Teams refused the Workflows address (${status}): make a new one with "Post to a channel when a webhook request is received".`;
    return withMessage(`Teams answered ${status}`, vendorMessage(answer));
  });
}

/** A header's value as ntfy reads it: UTF-8 beyond ASCII as an RFC 2047 encoded word. */
const headerText = (text: string) => (/^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text).toString("base64")}?=`);

/** ntfy: the submission as the message body POSTed to the topic, its title, tags and priority as ntfy's headers. */
export async function sendToNtfy(context: SendContext): Promise<AttemptResult> {
  const config = context.target.config as { topic: string; token?: string; priority?: number; tags?: string[] };
  const entries = mappedEntries(context.event.data.submission.data, context.target.fields);
  const message = entries.map(([name, value]) => `${name}: ${valueText(value)}`).join("\n") || "(no fields)";
  const headers: Record<string, string> = {
    "content-type": "text/plain; charset=utf-8",
    "user-agent": context.userAgent,
    title: headerText(`New submission to ${context.event.data.form.name}`.slice(0, 250)),
  };
  if (config.token) headers.authorization = `Bearer ${config.token}`;
  if (config.priority) headers.priority = String(config.priority);
  if (config.tags?.length) headers.tags = headerText(config.tags.join(","));
  const answer = await context.call(vendorUrl(VENDOR_BASES.ntfy, config, `/${config.topic}`), { method: "POST", headers, body: message.slice(0, 4096) });
  return outcome(answer, (status) => {
    if (status === 401 || status === 403)
      return `ntfy refused ${config.token ? "the token" : "to publish without a token"} on topic ${config.topic} (${status}).`;
    return status === 429 ? "ntfy's rate limit (429); tried again later." : withMessage(`ntfy answered ${status}`, vendorMessage(answer));
  });
}
