// Which pages may use a form: host patterns of allowedDomains matched against an address.
/** The host (and port, when one is written) of an http(s) URL or origin, lowercased; null for anything else. */
export function hostOf(value: string | null): { hostname: string; host: string } | null {
  if (!value || value === "null" || !URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return { hostname: url.hostname.toLowerCase(), host: url.host.toLowerCase() };
}

/**
 * Whether a page at `address` may use a form restricted to `domains`. An entry `example.com` matches that
 * host on any port, `*.example.com` any subdomain of it (not the apex), and `localhost:3000` that host and port.
 */
export function domainAllowed(domains: readonly string[], address: string | null): boolean {
  const target = hostOf(address);
  if (!target) return false;
  return domains.some((entry) => {
    const withPort = entry.includes(":");
    const candidate = withPort ? target.host : target.hostname;
    if (entry.startsWith("*.")) return candidate.endsWith(entry.slice(1)) && candidate.length > entry.length - 1;
    return candidate === entry;
  });
}
