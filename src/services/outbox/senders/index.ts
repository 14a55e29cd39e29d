// Sends one destination's delivery: the event as the type's vendor takes it (docs/api.md, "Destinations").
import type { DestinationTarget, DestinationType } from "../destination-types.ts";
import type { AttemptResult } from "../deliveries.ts";
import { type RequestOptions, requestOnce } from "../../../lib/http-request.ts";
import { type DestinationEvent, refusedBefore, type SendContext, type TokenCache } from "./common.ts";
import { sendToNotion } from "./notion.ts";
import { sendToSheets } from "./sheets.ts";
import { sendToAirtable, sendToMailchimp, sendToNtfy, sendToTeams, sendToTelegram } from "./vendors.ts";

const SENDERS: Record<DestinationType, (context: SendContext) => Promise<AttemptResult>> = {
  google_sheets: sendToSheets,
  airtable: sendToAirtable,
  notion: sendToNotion,
  mailchimp: sendToMailchimp,
  telegram: sendToTelegram,
  teams: sendToTeams,
  ntfy: sendToNtfy,
};

/** A cache of access tokens for one sender (Sheets' tokens last an hour: one exchange serves many rows). */
export const newTokenCache = (): TokenCache => new Map();

/**
 * Sends a destination's delivery once. Every address it calls (the vendor's, the owner's baseUrl, the key's
 * token_uri, the Teams address) goes through the guarded client, so each is checked again when sending.
 */
export async function sendToDestination(
  target: DestinationTarget,
  payload: string,
  options: RequestOptions & { userAgent: string; tokens: TokenCache },
): Promise<AttemptResult> {
  const send = SENDERS[target.type as DestinationType];
  if (!send) return refusedBefore(`No destination type ${target.type} in this version of formsvc.`, true);
  const event = JSON.parse(payload) as DestinationEvent;
  const call: SendContext["call"] = (url, init) => requestOnce(new URL(url), init, options);
  try {
    return await send({ target, event, call, userAgent: options.userAgent, tokens: options.tokens });
  } catch (error) {
    return refusedBefore(`The ${target.type} destination could not be sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
