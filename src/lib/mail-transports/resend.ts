// Resend's send-email endpoint: POST /emails with a Bearer key, and an Idempotency-Key so that a retry after a
// lost answer is not a second mail (https://resend.com/docs/api-reference/emails/send-email).
import { field, httpConnection, mailboxText, providerRequest, type Explained, type ProviderAnswer } from "./http.ts";
import type { MailTransport } from "./kind.ts";
import { endpointOf, keyOf } from "./url.ts";

interface ResendConfig {
  key: string;
  endpoint: string;
}

function explain(answer: ProviderAnswer): Explained {
  const message = field(answer.json, "message") ?? answer.text;
  const name = field(answer.json, "name") ?? "";
  const about = /api_key|restricted/.test(name) || answer.status === 401 ? "the key" : /domain|from/i.test(message) ? "the sender" : "the message";
  return { about, message };
}

export const resend: MailTransport<ResendConfig> = {
  schemes: ["resend"],
  label: "Resend",
  example: "resend://KEY@",
  parse: (url) => ({ key: keyOf(url, "resend://API_KEY@"), endpoint: endpointOf(url, "https://api.resend.com", "/emails") }),
  shown: (config) => `resend://${new URL(config.endpoint).host}`,
  secrets: (config) => [config.key],
  // Resend sends from a `send.` subdomain, whose SPF names Amazon SES.
  doctor: () => ({ spfInclude: "include:amazonses.com", spfDomain: (domain) => `send.${domain}` }),
  open: (config, { timeoutMs }) =>
    httpConnection(async (mail, signal) => {
      const body = {
        from: mailboxText(mail.from),
        to: mail.to,
        ...(mail.cc.length > 0 ? { cc: mail.cc } : {}),
        subject: mail.subject,
        text: mail.text,
        ...(mail.replyTo ? { reply_to: mail.replyTo } : {}),
        headers: { "Auto-Submitted": "auto-generated" },
      };
      const headers = { authorization: `Bearer ${config.key}`, "content-type": "application/json", "idempotency-key": `formsvc-${mail.id}` };
      const answer = await providerRequest("Resend", config.endpoint, { headers, body: JSON.stringify(body) }, { timeoutMs, signal, explain });
      return `Resend accepted it: ${field(answer.json, "id") ?? "no id"}`;
    }),
};
