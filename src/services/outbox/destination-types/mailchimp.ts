// Mailchimp: the member put by the lowercased address's MD5, new ones with the chosen status (pending: Mailchimp's
// own opt-in). A plain request: @mailchimp/mailchimp_marketing is larger than the one call and is not kept up.
import { createHash } from "node:crypto";
import { isEmail } from "../../../lib/validate.ts";
import { jsonHeaders, outcome, refusedBefore, valueText, vendorMessage, vendorUrl, withMessage } from "../senders/common.ts";
import { destinationKind, text } from "./kind.ts";

/** A Mailchimp key ends with its data centre: `…-us21`. */
const MAILCHIMP_KEY = /-(us\d{1,3})$/;

/** A Mailchimp audience, each submission's address added as a member. */
export const mailchimp = destinationKind({
  type: "mailchimp",
  title: "Mailchimp",
  schema: (z) =>
    z.strictObject({
      apiKey: text(z, "config.apiKey").regex(MAILCHIMP_KEY, "config.apiKey must end with its data centre, such as -us21."),
      audienceId: text(z, "config.audienceId"),
      status: z.enum(["subscribed", "pending"], { error: "config.status must be subscribed or pending." }).default("pending"),
      emailField: text(z, "config.emailField", 200).default("email"),
    }),
  secrets: ["apiKey"],
  targets: ["audienceId"],
  vendorBase: "https://{dc}.api.mailchimp.com",
  inputs: [
    { key: "apiKey", label: "API key (ends with -usN)", kind: "secret" },
    { key: "audienceId", label: "Audience id" },
    { key: "status", label: "New members are", kind: "status" },
  ],
  async send(context) {
    const config = context.target.config;
    const data = context.event.data.submission.data;
    const email = valueText(data[config.emailField]).trim();
    if (!isEmail(email))
      return refusedBefore(`Mailchimp: the submission's ${config.emailField} field holds no email address, so there is no one to add.`, true);
    const dc = MAILCHIMP_KEY.exec(config.apiKey)?.[1] ?? "us1";
    const hash = createHash("md5").update(email.toLowerCase()).digest("hex");
    const merge = Object.fromEntries(
      Object.entries(context.target.fields ?? {}).flatMap(([field, tag]) => (Object.hasOwn(data, field) ? [[tag, valueText(data[field])]] : [])),
    );
    const body = { email_address: email, status_if_new: config.status, ...(Object.keys(merge).length ? { merge_fields: merge } : {}) };
    const path = `/3.0/lists/${encodeURIComponent(config.audienceId)}/members/${hash}`;
    const answer = await context.call(vendorUrl(mailchimp.vendorBase!.replace("{dc}", dc), config, path), {
      method: "PUT",
      headers: jsonHeaders(context, { authorization: `Basic ${Buffer.from(`formsvc:${config.apiKey}`).toString("base64")}` }),
      body: JSON.stringify(body),
    });
    return outcome(answer, (status) => {
      if (status === 401 || status === 403) return `Mailchimp refused the API key (${status}).`;
      if (status === 404) return `Mailchimp: no audience ${config.audienceId} (404).`;
      if (status === 400) return withMessage("Mailchimp refused the member (400)", vendorMessage(answer));
      return `Mailchimp answered ${status}.`;
    });
  },
});
