// Amazon SES v2 SendEmail: POST /v2/email/outbound-emails, signed with Signature Version 4 for service `ses`
// (https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_SendEmail.html). aws4fetch signs; it is loaded
// only when this transport sends.
import { field, httpConnection, mailboxText, providerRequest, type Explained, type ProviderAnswer } from "./http.ts";
import type { MailTransport } from "./kind.ts";
import { endpointOf } from "./url.ts";

interface SesConfig {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  endpoint: string;
}

function explain(answer: ProviderAnswer): Explained {
  // The error's type comes in x-amzn-ErrorType ("MessageRejected:http://..."), its words in message or Message.
  const type = (answer.headers.get("x-amzn-errortype") ?? field(answer.json, "__type") ?? "").split(":")[0]!;
  const message = field(answer.json, "message") ?? field(answer.json, "Message") ?? answer.text;
  const about = /Signature|AccessDenied|Token|Credentials/i.test(type)
    ? "the key"
    : type === "MailFromDomainNotVerifiedException" || /not verified/i.test(message)
      ? "the sender"
      : "the message";
  return { about, message: type ? `${type}: ${message}` : message };
}

export const ses: MailTransport<SesConfig> = {
  schemes: ["ses"],
  label: "Amazon SES",
  example: "ses://KEY_ID:SECRET@REGION",
  parse: (url) => {
    if (!url.user || !url.password) throw new Error("it has no access key: write it as ses://ACCESS_KEY_ID:SECRET@REGION");
    if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(url.host)) throw new Error("it names no region: write it as ses://ACCESS_KEY_ID:SECRET@eu-west-1");
    const endpoint = endpointOf(url, `https://email.${url.host}.amazonaws.com`, "/v2/email/outbound-emails");
    return { accessKeyId: url.user, secretAccessKey: url.password, region: url.host, endpoint };
  },
  shown: (config) => `ses://${config.region} (${new URL(config.endpoint).host})`,
  secrets: (config) => [config.secretAccessKey],
  doctor: () => ({ spfInclude: "include:amazonses.com" }),
  open: (config, { timeoutMs }) => {
    let client: Promise<{ sign(url: string, init: RequestInit): Promise<Request> }> | null = null;
    const sign = async (url: string, init: RequestInit) => {
      client ??= import("aws4fetch").then(
        ({ AwsClient }) => new AwsClient({ accessKeyId: config.accessKeyId, secretAccessKey: config.secretAccessKey, service: "ses", region: config.region }),
      );
      return (await client).sign(url, init);
    };
    return httpConnection(async (mail, signal) => {
      const body = {
        FromEmailAddress: mailboxText(mail.from),
        Destination: { ToAddresses: mail.to, ...(mail.cc.length > 0 ? { CcAddresses: mail.cc } : {}) },
        ...(mail.replyTo ? { ReplyToAddresses: [mail.replyTo] } : {}),
        Content: {
          Simple: {
            Subject: { Data: mail.subject },
            Body: { Text: { Data: mail.text } },
          },
        },
      };
      const init = { headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
      const answer = await providerRequest("Amazon SES", config.endpoint, init, { timeoutMs, signal, explain, sign });
      return `Amazon SES accepted it: ${field(answer.json, "MessageId") ?? "no MessageId"}`;
    });
  },
};
