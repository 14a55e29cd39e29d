// ntfy: the submission as the message body POSTed to the topic, its title, tags and priority as ntfy's headers.
import { ownerText } from "../../../lib/defang.ts";
import { mappedEntries, outcome, valueText, vendorMessage, vendorUrl, withMessage } from "../senders/common.ts";
import { destinationKind, text } from "./kind.ts";

/** A header's value as ntfy reads it: UTF-8 beyond ASCII as an RFC 2047 encoded word. */
const headerText = (value: string) => (/^[\x20-\x7e]*$/.test(value) ? value : `=?UTF-8?B?${Buffer.from(value).toString("base64")}?=`);

/** An ntfy topic, on ntfy.sh or the owner's own server (baseUrl). */
export const ntfy = destinationKind({
  type: "ntfy",
  title: "ntfy",
  schema: (z) =>
    z.strictObject({
      topic: text(z, "config.topic", 64).regex(/^[-_A-Za-z0-9]+$/, "config.topic must be letters, digits, - and _ only."),
      token: text(z, "config.token").optional(),
      priority: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(5)], { error: "config.priority must be 1 to 5." }).optional(),
      tags: z
        .array(text(z, "config.tags", 50))
        .max(10)
        .optional(),
    }),
  secrets: ["token"],
  targets: ["topic"],
  vendorBase: "https://ntfy.sh",
  inputs: [
    { key: "topic", label: "Topic" },
    { key: "token", label: "Access token (optional)", kind: "secret", optional: true },
    { key: "baseUrl", label: "Server (optional, default https://ntfy.sh)", optional: true },
  ],
  async send(context) {
    const config = context.target.config;
    const entries = mappedEntries(context.event.data.submission.data, context.target.fields);
    const message = entries.map(([name, value]) => `${ownerText(name)}: ${ownerText(valueText(value))}`).join("\n") || "(no fields)";
    const headers: Record<string, string> = {
      "content-type": "text/plain; charset=utf-8",
      "user-agent": context.userAgent,
      title: headerText(`New submission to ${ownerText(context.event.data.form.name)}`.slice(0, 250)),
    };
    if (config.token) headers.authorization = `Bearer ${config.token}`;
    if (config.priority) headers.priority = String(config.priority);
    if (config.tags?.length) headers.tags = headerText(config.tags.join(","));
    const answer = await context.call(vendorUrl(ntfy.vendorBase!, config, `/${config.topic}`), { method: "POST", headers, body: message.slice(0, 4096) });
    return outcome(answer, (status) => {
      if (status === 401 || status === 403)
        return `ntfy refused ${config.token ? "the token" : "to publish without a token"} on topic ${config.topic} (${status}).`;
      return status === 429 ? "ntfy's rate limit (429); tried again later." : withMessage(`ntfy answered ${status}`, vendorMessage(answer));
    });
  },
});
