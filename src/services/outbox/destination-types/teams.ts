// Microsoft Teams: an Adaptive Card POSTed to a Workflows webhook's address, which is its secret and its target.
import { ownerText } from "../../../lib/defang.ts";
import { jsonHeaders, mappedEntries, outcome, valueText, vendorMessage, withMessage } from "../senders/common.ts";
import { address, destinationKind, type SendContext } from "./kind.ts";

/** The Adaptive Card of a submission: its form as the title, its fields as facts (as every owner channel shows them). */
export function adaptiveCard(context: SendContext<unknown>): unknown {
  const { form, submission } = context.event.data;
  const facts = mappedEntries(submission.data, context.target.fields).map(([name, value]) => ({
    title: ownerText(name).slice(0, 200),
    value: ownerText(valueText(value)).slice(0, 2000),
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
            { type: "TextBlock", text: `New submission to ${ownerText(form.name)}`, weight: "Bolder", size: "Medium", wrap: true },
            { type: "FactSet", facts },
          ],
        },
      },
    ],
  };
}

/** A Teams channel, through a Workflows webhook ("Post to a channel when a webhook request is received"). */
export const teams = destinationKind({
  type: "teams",
  title: "Microsoft Teams",
  schema: (z) => z.strictObject({ url: address(z, "config.url") }),
  secrets: ["url"],
  // Its address is a secret: a Teams destination is known by its type alone.
  targets: [],
  addresses: (config) => [{ key: "config.url", url: config.url }],
  inputs: [{ key: "url", label: "Workflows webhook address", kind: "secret" }],
  async send(context) {
    const answer = await context.call(context.target.config.url, {
      method: "POST",
      headers: jsonHeaders(context),
      body: JSON.stringify(adaptiveCard(context)),
    });
    // 202 Accepted is its success.
    return outcome(answer, (status) => {
      if (status === 401 || status === 403 || status === 404)
        return `Teams refused the Workflows address (${status}): make a new one with "Post to a channel when a webhook request is received".`;
      return withMessage(`Teams answered ${status}`, vendorMessage(answer));
    });
  },
});
