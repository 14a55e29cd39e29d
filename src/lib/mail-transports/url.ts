// A mail transport's address, read here rather than by WHATWG URL: `postmark://TOKEN@` has no host, which URL
// refuses, and a key may hold characters URL would reinterpret (docs/cli.md, --mail-url).

/** The parts of `scheme://user:password@host:port/path?query`, user and password percent-decoded. */
export interface MailUrl {
  /** The address as written (SMTP's goes to nodemailer whole). */
  href: string;
  scheme: string;
  user: string;
  password: string;
  host: string;
  port: number | null;
  path: string;
  query: URLSearchParams;
}

const SHAPE = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?$/i;

function decoded(text: string, what: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new Error(`its ${what} has a % not followed by two hex digits`);
  }
}

/** Splits a mail URL into its parts; an Error (saying what is wrong, never repeating the value) when it has no such shape. */
export function splitMailUrl(value: string): MailUrl {
  if (/[\u0000-\u0020\u007f]/.test(value)) throw new Error("it contains a space or a control character");
  const found = SHAPE.exec(value);
  if (!found) throw new Error("it is not scheme://...");
  const authority = found[2]!;
  const at = authority.lastIndexOf("@");
  const userinfo = at < 0 ? "" : authority.slice(0, at);
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  const colon = userinfo.indexOf(":");
  const portFound = /^(.*?)(?::(\d{1,5}))?$/.exec(hostPort)!;
  const port = portFound[2] === undefined ? null : Number(portFound[2]);
  if (port !== null && (port < 1 || port > 65535)) throw new Error("its port is not from 1 to 65535");
  return {
    href: value,
    scheme: found[1]!.toLowerCase(),
    user: decoded(colon < 0 ? userinfo : userinfo.slice(0, colon), "user"),
    password: decoded(colon < 0 ? "" : userinfo.slice(colon + 1), "password"),
    host: portFound[1]!.toLowerCase(),
    port,
    path: found[3]!,
    query: new URLSearchParams(found[4] ?? ""),
  };
}

/**
 * The provider's endpoint: `defaultOrigin` + `path`, or with `?base=URL` that URL's scheme, host and port (and
 * its path before the provider's), so that a test's stand-in or a regional endpoint takes the requests.
 */
export function endpointOf(url: MailUrl, defaultOrigin: string, path: string): string {
  const base = url.query.get("base");
  if (base === null) return `${defaultOrigin}${path}`;
  if (!URL.canParse(base) || !/^https?:$/.test(new URL(base).protocol)) throw new Error("its base must be an http:// or https:// address");
  return `${base.replace(/\/+$/, "")}${path}`;
}

/** The key of an HTTP provider's address (`scheme://KEY@`): its user, or an Error naming what is missing. */
export function keyOf(url: MailUrl, example: string): string {
  const key = url.user || url.password;
  if (!key) throw new Error(`it has no key: write it as ${example}`);
  return key;
}
