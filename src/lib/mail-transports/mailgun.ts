// Mailgun's messages endpoint: POST /v3/DOMAIN/messages, basic auth `api:KEY`, form fields
// (https://documentation.mailgun.com/docs/mailgun/api-reference/send/mailgun/messages).
import { field, httpConnection, mailboxText, providerRequest, type Explained, type ProviderAnswer } from "./http.ts";
import type { MailTransport } from "./kind.ts";
import { endpointOf, keyOf } from "./url.ts";

interface MailgunConfig {
  key: string;
  domain: string;
  endpoint: string;
}

const ORIGINS = { us: "https://api.mailgun.net", eu: "https://api.eu.mailgun.net" } as const;

function explain(answer: ProviderAnswer): Explained {
  const message = field(answer.json, "message") ?? answer.text;
  const about = answer.status === 401 ? "the key" : /domain|from|sender/i.test(message) ? "the sender" : "the message";
  return { about, message };
}

export const mailgun: MailTransport<MailgunConfig> = {
  schemes: ["mailgun"],
  label: "Mailgun",
  example: "mailgun://KEY@DOMAIN (?region=eu)",
  parse: (url) => {
    const key = keyOf(url, "mailgun://API_KEY@mg.example.com");
    if (!/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,63}$/.test(url.host))
      throw new Error("it names no sending domain: write it as mailgun://API_KEY@mg.example.com");
    const region = url.query.get("region") ?? "us";
    if (region !== "us" && region !== "eu") throw new Error("its region must be us or eu");
    return { key, domain: url.host, endpoint: endpointOf(url, ORIGINS[region], `/v3/${url.host}/messages`) };
  },
  shown: (config) => `mailgun://${config.domain} (${new URL(config.endpoint).host})`,
  secrets: (config) => [config.key, btoa(`api:${config.key}`)],
  doctor: () => ({ spfInclude: "include:mailgun.org" }),
  open: (config, { timeoutMs }) =>
    httpConnection(async (mail, signal) => {
      const form = new URLSearchParams();
      form.set("from", mailboxText(mail.from));
      for (const to of mail.to) form.append("to", to);
      for (const cc of mail.cc) form.append("cc", cc);
      form.set("subject", mail.subject);
      form.set("text", mail.text);
      if (mail.replyTo) form.set("h:Reply-To", mail.replyTo);
      const headers = { authorization: `Basic ${btoa(`api:${config.key}`)}` };
      const answer = await providerRequest("Mailgun", config.endpoint, { headers, body: form }, { timeoutMs, signal, explain });
      return `Mailgun accepted it: ${field(answer.json, "id") ?? "no id"}`;
    }),
};
