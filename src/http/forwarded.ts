import { AsyncLocalStorage } from "node:async_hooks";

// A host as a proxy may name it: a name or IPv4 address, or an IPv6 address in brackets, with an optional port.
const HOST = /^(?:[a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/** The first value of a comma-separated header: the one the proxy nearest the client wrote. */
const first = (value: string | null) => value?.split(",")[0]?.trim().replace(/^"|"$/g, "") || undefined;

/** proto and host of the first element of an RFC 7239 `Forwarded` header. */
function fromForwarded(value: string | null): { proto?: string; host?: string } {
  const element = value?.split(",")[0] ?? "";
  const out: { proto?: string; host?: string } = {};
  for (const pair of element.split(";")) {
    const at = pair.indexOf("=");
    const key = pair.slice(0, at).trim().toLowerCase();
    const found = pair
      .slice(at + 1)
      .trim()
      .replace(/^"|"$/g, "");
    if (at > 0 && (key === "proto" || key === "host")) out[key] = found;
  }
  return out;
}

/**
 * The public origin a trusted proxy says the client used (`Forwarded`, else `X-Forwarded-Proto` and
 * `X-Forwarded-Host`, the Host header filling in a missing host), or null when it says neither or says
 * something that is not a scheme and a host.
 */
export function forwardedOrigin(headers: Headers): string | null {
  const standard = fromForwarded(headers.get("forwarded"));
  const proto = (standard.proto ?? first(headers.get("x-forwarded-proto")))?.toLowerCase();
  const named = standard.host ?? first(headers.get("x-forwarded-host"));
  if (!proto && !named) return null;
  const host = named ?? headers.get("host") ?? "";
  if ((proto !== undefined && proto !== "http" && proto !== "https") || !HOST.test(host)) return null;
  const origin = `${proto ?? "http"}://${host.toLowerCase()}`;
  // The default port is left out, as a browser's Origin leaves it out.
  return URL.canParse(origin) ? new URL(origin).origin : null;
}

const requestOrigin = new AsyncLocalStorage<string>();

/** Runs `work` with `origin` as the public address of the request it answers. */
export const withPublicOrigin = <T>(origin: string, work: () => T): T => requestOrigin.run(origin, work);

/** The public origin of the request being answered, as a trusted proxy told it, or undefined. */
export const currentPublicOrigin = (): string | undefined => requestOrigin.getStore();
