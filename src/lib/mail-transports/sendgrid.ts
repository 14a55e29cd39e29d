// SendGrid's v3 Mail Send: POST /v3/mail/send with a Bearer key; 202 with an empty body when accepted
// (https://www.twilio.com/docs/sendgrid/api-reference/mail-send/mail-send).
import { httpConnection, providerRequest, type Explained, type ProviderAnswer } from "./http.ts";
import type { MailTransport } from "./kind.ts";
import { endpointOf, keyOf } from "./url.ts";

interface SendgridConfig {
  key: string;
  endpoint: string;
}

function explain(answer: ProviderAnswer): Explained {
  const errors = (answer.json as { errors?: { message?: unknown; field?: unknown }[] } | null)?.errors;
  const first = Array.isArray(errors) ? errors[0] : undefined;
  const message = Array.isArray(errors)
    ? errors
        .map((e) => (typeof e.message === "string" ? e.message : ""))
        .filter(Boolean)
        .join("; ")
    : answer.text;
  const about = answer.status === 401 ? "the key" : first?.field === "from" || /sender identity/i.test(message) ? "the sender" : "the message";
  return { about, message };
}

export const sendgrid: MailTransport<SendgridConfig> = {
  schemes: ["sendgrid"],
  label: "SendGrid",
  example: "sendgrid://KEY@",
  parse: (url) => ({ key: keyOf(url, "sendgrid://API_KEY@"), endpoint: endpointOf(url, "https://api.sendgrid.com", "/v3/mail/send") }),
  shown: (config) => `sendgrid://${new URL(config.endpoint).host}`,
  secrets: (config) => [config.key],
  doctor: () => ({ spfInclude: "include:sendgrid.net" }),
  open: (config, { timeoutMs }) =>
    httpConnection(async (mail, signal) => {
      const body = {
        personalizations: [{ to: mail.to.map((email) => ({ email })), ...(mail.cc.length > 0 ? { cc: mail.cc.map((email) => ({ email })) } : {}) }],
        from: { email: mail.from.address, ...(mail.from.name ? { name: mail.from.name } : {}) },
        ...(mail.replyTo ? { reply_to: { email: mail.replyTo } } : {}),
        subject: mail.subject,
        content: [{ type: "text/plain", value: mail.text }],
      };
      const headers = { authorization: `Bearer ${config.key}`, "content-type": "application/json" };
      const answer = await providerRequest("SendGrid", config.endpoint, { headers, body: JSON.stringify(body) }, { timeoutMs, signal, explain });
      return `SendGrid accepted it: ${answer.headers.get("x-message-id") ?? "no X-Message-Id"}`;
    }),
};
