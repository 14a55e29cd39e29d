// A destination type that formsvc does not have, for test/api/adding-a-destination-type.test.ts: one module, as
// each real type is one module under src/services/outbox/destination-types/. It posts a submission's text to a
// channel of a pager service, with a PIN as its secret.
import { jsonHeaders, mappedEntries, outcome, plainText, vendorUrl } from "../../src/services/outbox/senders/common.ts";
import { destinationKind, text } from "../../src/services/outbox/destination-types/kind.ts";

/** A pager service's channel, written to with a PIN. */
export const pager = destinationKind({
  type: "pager",
  title: "Pager",
  schema: (z) => z.strictObject({ pin: text(z, "config.pin", 20), channel: text(z, "config.channel", 100) }),
  secrets: ["pin"],
  targets: ["channel"],
  vendorBase: "https://pager.invalid",
  inputs: [
    { key: "pin", label: "Pager PIN", kind: "secret" },
    { key: "channel", label: "Pager channel" },
  ],
  async send(context) {
    const config = context.target.config;
    const answer = await context.call(vendorUrl(pager.vendorBase!, config, `/channels/${encodeURIComponent(config.channel)}`), {
      method: "POST",
      headers: jsonHeaders(context, { authorization: `PIN ${config.pin}` }),
      body: JSON.stringify({ text: plainText(context.event, mappedEntries(context.event.data.submission.data, context.target.fields), 1000) }),
    });
    return outcome(answer, (status) => `Pager answered ${status}.`);
  },
});
