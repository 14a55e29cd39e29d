// Addresses as SMTP can carry them. An internationalised domain always has an ASCII form (punycode, RFC 5891);
// a local part outside ASCII has none: it travels only to a server that offers SMTPUTF8 (RFC 6531).
import { domainToASCII } from "node:url";

const NON_ASCII = /[^\u0000-\u007f]/;

/** The address in ASCII, its domain as punycode; null when it has no ASCII form (a local part outside ASCII). */
export function asciiAddress(address: string): string | null {
  const at = address.lastIndexOf("@");
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  if (at < 0 || NON_ASCII.test(local)) return null;
  if (!NON_ASCII.test(domain)) return address;
  const ascii = domainToASCII(domain);
  return ascii ? `${local}@${ascii}` : null;
}

/** The addresses of one message: its sender, its recipient, its copies and where replies go. */
export interface MessageAddresses {
  from: string;
  to: string;
  cc: string[];
  replyTo: string | null;
}

/** The addresses a message goes out with, and what could not go: a refusal stops it, a note tells what it left out. */
export interface AddressPlan {
  addresses: MessageAddresses;
  /** Why the message is not sent at all (its sender or its recipient cannot travel), or null. */
  refusal: string | null;
  /** What was left out of a message that is sent (a copy, the Reply-To), or null. */
  note: string | null;
}

/** True when one of the message's addresses can travel only with SMTPUTF8, so that the server must be asked. */
export function needsSmtpUtf8(wanted: MessageAddresses): boolean {
  return [wanted.from, wanted.to, ...wanted.cc, ...(wanted.replyTo ? [wanted.replyTo] : [])].some((address) => asciiAddress(address) === null);
}

const WHY = "needs SMTPUTF8, which the mail server does not offer (a local part outside ASCII cannot be encoded)";

/**
 * The addresses as the server can take them: with `smtpUtf8` (the server offers it) every address goes, a domain
 * still as punycode where the local part is ASCII; without it, an address with no ASCII form refuses the message
 * when it is the sender or the recipient, and is left out (and named in the note) when it is a copy or the Reply-To.
 * `recipient` names the recipient in the refusal.
 */
export function planAddresses(wanted: MessageAddresses, smtpUtf8: boolean, recipient = "the notification address"): AddressPlan {
  const fit = (address: string) => asciiAddress(address) ?? (smtpUtf8 ? address : null);
  const from = fit(wanted.from);
  const to = fit(wanted.to);
  const refused = from === null ? `the sender address ${wanted.from} (--mail-from)` : to === null ? `${recipient} ${wanted.to}` : null;
  const cc = wanted.cc.map((address) => ({ address, fitted: fit(address) }));
  const replyTo = wanted.replyTo === null ? null : fit(wanted.replyTo);
  const leftOut = [
    ...cc.filter((copy) => copy.fitted === null).map((copy) => `the copy to ${copy.address}`),
    ...(wanted.replyTo !== null && replyTo === null ? [`the Reply-To ${wanted.replyTo}`] : []),
  ];
  return {
    addresses: { from: from ?? wanted.from, to: to ?? wanted.to, cc: cc.flatMap((copy) => (copy.fitted ? [copy.fitted] : [])), replyTo },
    refusal: refused ? `Not sent: ${refused} ${WHY}. Use an ASCII address or a mail server that offers SMTPUTF8, then retry.` : null,
    note: leftOut.length > 0 ? `Sent without ${leftOut.join(" and ")}: ${leftOut.length > 1 ? "each" : "it"} ${WHY}.` : null,
  };
}
