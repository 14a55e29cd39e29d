// Postmark's Email API: POST /email with the server token in X-Postmark-Server-Token
// (https://postmarkapp.com/developer/api/email-api).
import { field, httpConnection, mailboxText, providerRequest, type Explained, type ProviderAnswer } from "./http.ts";
import type { MailTransport } from "./kind.ts";
import { endpointOf, keyOf } from "./url.ts";

interface PostmarkConfig {
  token: string;
  endpoint: string;
}

// Postmark's ErrorCode values that are about the From (https://postmarkapp.com/developer/api/overview#error-codes).
const SENDER_CODES = new Set([400, 401, 412]);
const KEY_CODES = new Set([10]);

function explain(answer: ProviderAnswer): Explained {
  const code = (answer.json as { ErrorCode?: unknown } | null)?.ErrorCode;
  const about = SENDER_CODES.has(code as number) ? "the sender" : KEY_CODES.has(code as number) || answer.status === 401 ? "the key" : "the message";
  return { about, message: field(answer.json, "Message") ?? answer.text };
}

export const postmark: MailTransport<PostmarkConfig> = {
  schemes: ["postmark"],
  label: "Postmark",
  example: "postmark://TOKEN@",
  parse: (url) => ({ token: keyOf(url, "postmark://SERVER_TOKEN@"), endpoint: endpointOf(url, "https://api.postmarkapp.com", "/email") }),
  shown: (config) => `postmark://${new URL(config.endpoint).host}`,
  secrets: (config) => [config.token],
  doctor: () => ({ spfInclude: "include:spf.mtasv.net" }),
  open: (config, { timeoutMs }) =>
    httpConnection(async (mail, signal) => {
      const body = {
        From: mailboxText(mail.from),
        To: mail.to.join(", "),
        ...(mail.cc.length > 0 ? { Cc: mail.cc.join(", ") } : {}),
        Subject: mail.subject,
        TextBody: mail.text,
        ...(mail.replyTo ? { ReplyTo: mail.replyTo } : {}),
        Headers: [{ Name: "Auto-Submitted", Value: "auto-generated" }],
        MessageStream: "outbound",
      };
      const answer = await providerRequest(
        "Postmark",
        config.endpoint,
        {
          headers: { accept: "application/json", "content-type": "application/json", "x-postmark-server-token": config.token },
          body: JSON.stringify(body),
        },
        { timeoutMs, signal, explain },
      );
      return `Postmark accepted it: ${field(answer.json, "MessageID") ?? "no MessageID"}`;
    }),
};
