// The parsers of serve's settings (src/config.ts declares which setting takes which): each checks one value
// and says what is wrong with it in the words of its flag.
import { ApiError } from "./errors.ts";
import { parseMailbox, type Mailbox } from "./lib/mail.ts";
import { chooseTransport } from "./lib/mail-transports/index.ts";
import { splitMailUrl } from "./lib/mail-transports/url.ts";
import { parseDuration } from "./lib/time.ts";
import { isEmail } from "./lib/validate.ts";
import { CAPTCHA_VERIFY_URLS } from "./services/spam/captcha.ts";
import { CAPTCHA_PROVIDERS, type CaptchaProvider } from "./domain/types.ts";

/** `provider=URL` pairs, separated by spaces (one per --captcha-verify-url), over the providers' own addresses. */
export function captchaVerifyUrls(value: string | undefined): Record<CaptchaProvider, string> {
  const urls = { ...CAPTCHA_VERIFY_URLS };
  for (const pair of (value ?? "").split(/\s+/).filter(Boolean)) {
    const at = pair.indexOf("=");
    const provider = pair.slice(0, at) as CaptchaProvider;
    if (at < 0 || !CAPTCHA_PROVIDERS.includes(provider)) {
      throw new ApiError("invalid_parameter", `captcha-verify-url must be PROVIDER=URL with PROVIDER one of ${CAPTCHA_PROVIDERS.join(", ")}, not "${pair}"`, {
        field: "captcha-verify-url",
      });
    }
    urls[provider] = url("captcha-verify-url", pair.slice(at + 1));
  }
  return urls;
}

export function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ApiError("invalid_parameter", `${name} must be a whole number from ${min} to ${max}, not "${value}"`, { field: name });
  }
  return Number(value);
}

export function url(name: string, value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ApiError("invalid_parameter", `${name} must be an absolute http(s) URL, not "${value}"`, { field: name });
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new ApiError("invalid_parameter", `${name} must be an absolute http(s) URL, not "${value}"`, { field: name });
  }
  return value.replace(/\/+$/, "");
}

export function scale(value: string, name = "webhook-retry-scale"): number {
  const n = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(n > 0) || n > 1000) {
    throw new ApiError("invalid_parameter", `${name} must be a number above 0 and at most 1000, such as 0.001, not "${value}"`, {
      field: name,
    });
  }
  return n;
}

const SMTP_EXAMPLE = "smtp://user:pass@mail.example.com:587 or smtps://user:pass@mail.example.com";

/** An smtp:// or smtps:// URL with a host; the message never repeats the value, which may hold a password. */
export function smtpUrl(value: string): string {
  const parsed = /[\u0000-\u0020\u007f]/.test(value) || !URL.canParse(value) ? null : new URL(value);
  if (!parsed || (parsed.protocol !== "smtp:" && parsed.protocol !== "smtps:") || parsed.hostname === "") {
    throw new ApiError("invalid_parameter", `smtp-url must be an address such as ${SMTP_EXAMPLE}`, { field: "smtp-url" });
  }
  return value;
}

/**
 * The mail transport's address of --mail-url (docs/deploy.md, "Choosing a mail transport"), else --smtp-url's,
 * else null (mail is off). The message says what is wrong and never repeats the value, which holds a secret.
 */
export function mailUrl(name: string, value: string | undefined, smtp: string | null): string | null {
  if (value === undefined) return smtp ?? null;
  if (smtp !== null) throw new ApiError("invalid_parameter", `${name} and smtp-url both name a mail transport: give one of them`, { field: name });
  try {
    chooseTransport(value);
  } catch (error) {
    throw new ApiError("invalid_parameter", `${name} is not a mail address formsvc can send through: ${(error as Error).message}`, { field: name });
  }
  return value;
}

/** The SMTP URL as it may be shown: the password replaced by ***. */
export function redactedSmtpUrl(value: string): string {
  const url = new URL(value);
  if (url.password) url.password = "***";
  return url.href.replace(/\/$/, "");
}

/** The mail URL as serve's start-up line shows it: SMTP's with the password as ***, a provider's scheme and host. */
export function shownMailUrl(value: string): string {
  return /^smtps?:/i.test(value) ? redactedSmtpUrl(value) : chooseTransport(value).shown;
}

/** The From when none is set: the SMTP login when it is an email address (as most providers require), else formsvc@localhost. */
function defaultMailFrom(mail: string | null): Mailbox {
  const user = mail && /^smtps?:/i.test(mail) ? splitMailUrl(mail).user : "";
  return { name: "formsvc", address: isEmail(user) ? user : "formsvc@localhost" };
}

/** A true/false flag or variable (also 1/0). */
export function boolean(name: string, value: string): boolean {
  if (!["true", "false", "1", "0"].includes(value)) throw new ApiError("invalid_parameter", `${name} must be true or false, not "${value}"`, { field: name });
  return value === "true" || value === "1";
}

/** HOST:PORT (an IPv6 host in brackets), for a second listening address. */
export function listenAddress(name: string, value: string): { host: string; port: number } {
  const found = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(value);
  if (!found || Number(found[3]) > 65535) {
    throw new ApiError("invalid_parameter", `${name} must be HOST:PORT such as 127.0.0.1:9090, not "${value}"`, { field: name });
  }
  return { host: found[1] ?? found[2]!, port: Number(found[3]) };
}

/** Host names for --domain (space- or comma-separated in the environment), lowercased. */
export function domains(name: string, value: string | undefined): string[] {
  const names = (value ?? "").split(/[\s,]+/).filter(Boolean);
  for (const domain of names) {
    if (!/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain)) {
      throw new ApiError("invalid_parameter", `${name} must be a host name such as forms.example.com, not "${domain}"`, { field: name });
    }
  }
  return names.map((domain) => domain.toLowerCase());
}

/** A duration such as 90s, 15m, 24h, 7d (0s for none), from min to max milliseconds. */
export function duration(name: string, value: string, min: number, max: number): number {
  const ms = parseDuration(value);
  if (ms === null || ms < min || ms > max) {
    throw new ApiError("invalid_parameter", `${name} must be a duration such as 90s, 15m, 24h or 7d, at most ${max / 86_400_000}d, not "${value}"`, {
      field: name,
    });
  }
  return ms;
}

/** The From given, or when none is: the SMTP login when it is an email address, else formsvc@localhost. */
export function mailFrom(name: string, value: string | undefined, mail: string | null): Mailbox {
  if (value === undefined) return defaultMailFrom(mail);
  const mailbox = parseMailbox(value);
  if (!mailbox) {
    throw new ApiError("invalid_parameter", `${name} must be an address such as you@example.com or "Forms <forms@example.com>", not "${value}"`, {
      field: name,
    });
  }
  return mailbox;
}

export function logFormat(value: string): "text" | "json" {
  if (value !== "text" && value !== "json") throw new ApiError("invalid_parameter", `log-format must be text or json, not "${value}"`, { field: "log-format" });
  return value;
}
