// Submitted text made inert where a person reads it: no link a visitor typed can be followed from a message.
import { isEmail } from "./validate.ts";

// An address (`ann@example.com`), a URL with a scheme (`https://…`, `ftp://…`), `mailto:`, or a bare host name
// (`www.example.com`, `evil.example`) that a mail client would make a link of. Full-width and ideographic dots
// and at signs count too: some clients read them as their ASCII twins.
const AT = "@\uff20\ufe6b";
// The ASCII dot and the dots some clients read as one: ideographic, full-width, half-width, one dot leader, small.
const DOT = ".\u3002\uff0e\uff61\u2024\ufe52";
const LINKISH = new RegExp(
  `\\b([a-z][a-z0-9+.-]*)://([^\\s/?#]*)` +
    `|\\b(mailto|javascript|data|file|tel|sms|callto|sip|xmpp|irc|news):` +
    `|([^\\s${AT}<>()"',;]+)[${AT}]([^\\s${AT}<>()"',;]+)` +
    // A bare IPv4 address (1.2.3.4, with or without a path after it): clients make links of those too.
    `|\\b(\\d{1,3}(?:[${DOT}]\\d{1,3}){3})\\b` +
    `|((?:[\\p{L}\\p{N}_-]+[${DOT}])+\\p{L}[\\p{L}\\p{N}-]*)`,
  "giu",
);

const defangHost = (host: string) => host.replace(new RegExp(`[${DOT}]`, "gu"), "[.]");

/**
 * A value made inert for a mail client: `https://example.com` becomes `hxxps://example[.]com`, `ann@example.com`
 * becomes `ann[@]example[.]com` (its domain too: `support[@]evil.example/reset` must not leave a link to
 * evil.example), `mailto:` becomes `mailto[:]`, a bare `www.example.com` becomes `www[.]example[.]com` and a
 * bare `1.2.3.4` becomes `1[.]2[.]3[.]4`.
 */
export function defang(text: string): string {
  return text.replace(LINKISH, (match, scheme?: string, host?: string, bareScheme?: string, local?: string, domain?: string) => {
    if (scheme !== undefined) {
      const safe = scheme.replace(/^http/i, (h) => (h[0] === "H" ? "HXXP" : "hxxp"));
      return `${safe === scheme ? `${scheme}[:]` : `${safe}:`}//${defangHost(host ?? "")}`;
    }
    if (bareScheme !== undefined) return `${bareScheme}[:]`;
    if (local !== undefined && domain !== undefined) return `${local}[@]${defangHost(domain)}`;
    return defangHost(match);
  });
}

// The domain of an address kept as given: a host's letters, digits, dots and hyphens, nothing after it (a path
// such as `support@evil.example/reset` would leave a link to evil.example).
const ADDRESS_DOMAIN = /^[\p{L}\p{N}.-]+$/u;

/**
 * A visitor's value as every owner channel shows it (the notification mail, Teams, Telegram, ntfy): links
 * defanged as `defang` does, so that nothing submitted is clickable, but an email address that is one whole
 * address kept as given, so that the owner can copy it and reply.
 */
export function ownerText(text: string): string {
  return text.replace(LINKISH, (match, _scheme?: string, _host?: string, _bare?: string, local?: string, domain?: string) =>
    local !== undefined && domain !== undefined && ADDRESS_DOMAIN.test(domain) && isEmail(match) ? match : defang(match),
  );
}
