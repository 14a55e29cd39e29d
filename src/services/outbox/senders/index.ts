// Sends one destination's delivery: the event as the type's vendor takes it, by the sender its type's module
// declares (destination-types/, docs/api.md "Destinations").
import { type RequestOptions, requestOnce } from "../../../lib/http-request.ts";
import { kindOf } from "../destination-types/index.ts";
import type { AttemptResult, DestinationEvent, DestinationTarget, SendContext, TokenCache } from "../destination-types/kind.ts";
import { refusedBefore } from "./common.ts";

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
  const kind = kindOf(target.type);
  if (!kind) return refusedBefore(`No destination type ${target.type} in this version of formsvc.`, true);
  const event = JSON.parse(payload) as DestinationEvent;
  const call: SendContext["call"] = (url, init) => requestOnce(new URL(url), init, options);
  try {
    // The config was checked by the type's schema when it was saved: it is that schema's output.
    return await kind.send({ target, event, call, userAgent: options.userAgent, tokens: options.tokens } as SendContext<never>);
  } catch (error) {
    return refusedBefore(`The ${target.type} destination could not be sent: ${error instanceof Error ? error.message : String(error)}`);
  }
}
