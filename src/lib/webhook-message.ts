// Bun's HMAC and the web crypto's random bytes rather than node:crypto, whose module (and what it sets up of
// Node's streams) costs every start of the server about 1 MB of resident memory (docs/performance.md).

export const WEBHOOK_FORMATS = ["standard", "slack", "discord"] as const;
export type WebhookFormat = (typeof WEBHOOK_FORMATS)[number];

const SECRET_PREFIX = "whsec_";

/** A new signing secret: `whsec_` and the base64 of 24 random bytes, as Standard Webhooks libraries expect. */
export function newWebhookSecret(): string {
  return `${SECRET_PREFIX}${Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64")}`;
}

/** The start of a secret shown in lists (`whsec_Ab12…`): enough to tell two apart, useless to an attacker. */
export const secretPrefix = (secret: string) => `${secret.slice(0, SECRET_PREFIX.length + 4)}…`;

/**
 * `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">` keyed with the secret's bytes (Standard Webhooks);
 * given several secrets (the new one and, after a rotation, the old one), one signature each, space-separated,
 * which Standard Webhooks receivers accept when any one matches. A null secret is skipped.
 */
export function signWebhook(secrets: string | readonly (string | null)[], messageId: string, timestamp: number, body: string): string {
  const signed = `${messageId}.${timestamp}.${body}`;
  return (typeof secrets === "string" ? [secrets] : secrets)
    .filter((secret): secret is string => secret !== null)
    .map((secret) => {
      const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64");
      return `v1,${new Bun.CryptoHasher("sha256", key).update(signed).digest("base64")}`;
    })
    .join(" ");
}

/** What a chat message shows of a submission. */
export interface ChatSummary {
  formName: string;
  data: Record<string, unknown>;
  link: string;
}

const CHAT_FIELDS = 3;
const CHAT_VALUE = 100;

/** A field's value as one short line of plain text. */
function shortValue(value: unknown): string {
  const text = Array.isArray(value)
    ? value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ")
    : typeof value === "string"
      ? value
      : JSON.stringify(value);
  const line = (text ?? "").replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return line.length > CHAT_VALUE ? `${line.slice(0, CHAT_VALUE - 1)}…` : line;
}

/** The form name, the first fields and the link, one per line. `escapeText` makes untrusted text inert for the chat. */
function chatLines(summary: ChatSummary, escapeText: (text: string) => string, bold: (text: string) => string): string {
  const entries = Object.entries(summary.data).slice(0, CHAT_FIELDS);
  const more = Object.keys(summary.data).length - entries.length;
  const lines = [`New submission to ${bold(escapeText(shortValue(summary.formName)))}`];
  for (const [name, value] of entries) lines.push(`${escapeText(shortValue(name))}: ${escapeText(shortValue(value))}`);
  if (more > 0) lines.push(`(${more} more field${more === 1 ? "" : "s"})`);
  lines.push(summary.link);
  return lines.join("\n");
}

/**
 * A Slack incoming-webhook body. Slack reads `<…>` as links and mentions (`<!channel>`) and `&` as an entity:
 * those three are escaped, as Slack asks, so that submitted text cannot ping a channel or disguise a link.
 */
export function slackMessage(summary: ChatSummary): string {
  const escapeText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  return JSON.stringify({ text: chatLines(summary, escapeText, (t) => `*${t}*`) });
}

/**
 * A Discord webhook body. Mentions are turned off (`allowed_mentions`), and Markdown in submitted text is
 * escaped, so that an `@everyone` or a masked link in a field stays plain text.
 */
export function discordMessage(summary: ChatSummary): string {
  const escapeText = (text: string) => text.replace(/([\\*_~`|>[\]()#-])/g, "\\$1");
  return JSON.stringify({ content: chatLines(summary, escapeText, (t) => `**${t}**`).slice(0, 2000), allowed_mentions: { parse: [] } });
}
