// Telegram: a plain-text message (the Bot API's sendMessage) to the chat, without link previews.
import { jsonHeaders, mappedEntries, outcome, plainText, vendorMessage, vendorUrl, withMessage } from "../senders/common.ts";
import { destinationKind, text } from "./kind.ts";

/** A Telegram chat, written to by a bot. */
export const telegram = destinationKind({
  type: "telegram",
  title: "Telegram",
  schema: (z) =>
    z.strictObject({
      botToken: text(z, "config.botToken"),
      chatId: z.union([text(z, "config.chatId", 100), z.number().int()]).transform(String),
    }),
  secrets: ["botToken"],
  targets: ["chatId"],
  vendorBase: "https://api.telegram.org",
  inputs: [
    { key: "botToken", label: "Bot token", kind: "secret" },
    { key: "chatId", label: "Chat id", placeholder: "-100…" },
  ],
  async send(context) {
    const config = context.target.config;
    const text = plainText(context.event, mappedEntries(context.event.data.submission.data, context.target.fields), 4096);
    // The token is part of the path, as Telegram's Bot API has it: the address is never logged.
    const answer = await context.call(vendorUrl(telegram.vendorBase!, config, `/bot${config.botToken}/sendMessage`), {
      method: "POST",
      headers: jsonHeaders(context),
      body: JSON.stringify({ chat_id: config.chatId, text, link_preview_options: { is_disabled: true } }),
    });
    return outcome(answer, (status) => {
      if (status === 401 || status === 404) return `Telegram refused the bot token (${status}).`;
      if (status === 400 && /chat not found/i.test(answer.text))
        return `Telegram: chat ${config.chatId} not found (400): add the bot to the chat, or start a chat with it.`;
      if (status === 403) return `Telegram: the bot may not write to chat ${config.chatId} (403): it was blocked or removed.`;
      return withMessage(`Telegram answered ${status}`, vendorMessage(answer));
    });
  },
});
