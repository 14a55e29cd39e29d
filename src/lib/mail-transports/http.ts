// The one request an HTTP mail provider takes, and what its answer means for the outbox: 2xx sent; 429, 5xx
// or no answer tried again; any other 4xx refused for good, in the owner's words (docs/deploy.md).
import { headerSafe } from "../mail.ts";
import { type MailConnection, MailRefusal, type OutgoingMail } from "./kind.ts";

/** A provider's answer as read once: status, headers and body (JSON when it parses). */
export interface ProviderAnswer {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

/** What a refusal was about, and the provider's own words for it. */
export interface Explained {
  about: "the sender" | "the key" | "the recipient" | "the message";
  message: string;
}

/** The longest piece of a provider's words kept: enough for its reason, not a page of HTML. */
const MAX_WORDS = 300;

/** A string field of a JSON object, if it is one. */
export function field(json: unknown, name: string): string | undefined {
  const value = (json as Record<string, unknown> | null)?.[name];
  return typeof value === "string" ? value : undefined;
}

/** The provider's words cut to one short line. */
function words(text: string): string {
  const line = headerSafe(text);
  return line.length > MAX_WORDS ? `${line.slice(0, MAX_WORDS)}…` : line;
}

/**
 * Sends one request to a provider within `timeoutMs` and answers its 2xx answer; throws a MailRefusal
 * otherwise: `explain` reads the provider's error body into what was refused and why.
 */
export async function providerRequest(
  label: string,
  url: string,
  init: RequestInit,
  options: {
    timeoutMs: number;
    signal?: AbortSignal;
    explain: (answer: ProviderAnswer) => Explained;
    /** Signs the request (Amazon SES) before it goes. */
    sign?: (url: string, init: RequestInit) => Promise<Request>;
  },
): Promise<ProviderAnswer> {
  const signals = [AbortSignal.timeout(options.timeoutMs), ...(options.signal ? [options.signal] : [])];
  let response: Response;
  let text: string;
  try {
    const request = { ...init, method: "POST" };
    const signed = options.sign ? await options.sign(url, request) : new Request(url, request);
    response = await fetch(signed, { redirect: "manual", signal: AbortSignal.any(signals) });
    text = await response.text();
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${options.timeoutMs} ms` : (error as Error).message;
    throw new MailRefusal(`${label} could not be reached: ${words(reason)}`, false);
  }
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON (a proxy's page, Mailgun's plain "Forbidden"): the text is the provider's word.
  }
  const answer = { status: response.status, headers: response.headers, text, json };
  if (response.status >= 200 && response.status < 300) return answer;
  const explained = options.explain(answer);
  const said = words(explained.message || text || response.statusText || "no reason given");
  if (response.status === 429 || response.status >= 500) {
    throw new MailRefusal(`${label} did not take the message for now: ${said} (${response.status})`, false);
  }
  throw new MailRefusal(`${label} refused ${explained.about}: ${said} (${response.status})`, true);
}

/** The display form of a mailbox for providers that take one string: `Name <address>`, quoted when it must be. */
export function mailboxText(mailbox: { name: string; address: string }): string {
  if (!mailbox.name) return mailbox.address;
  const name = /^[\w !#$%&'*+\-/=?^`{|}~.]*$/.test(mailbox.name) ? mailbox.name : `"${mailbox.name.replace(/["\\]/g, "\\$&")}"`;
  return `${name} <${mailbox.address}>`;
}

/** An HTTP provider's connection: what it sends is the whole of it, and it takes only ASCII addresses. */
export function httpConnection(send: (mail: OutgoingMail, signal?: AbortSignal) => Promise<string>): MailConnection {
  return { send, takesUtf8Addresses: async () => false, close() {} };
}
