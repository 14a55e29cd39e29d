/** Resolves a host name to every address it has (the shape of node:dns/promises lookup with `all`). */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

/**
 * 4 for a dotted-quad IPv4 address, 6 for an IPv6 address, else 0 (as node:net's isIP says, without loading
 * Node's socket module into every command that opens the services).
 */
export function isIP(text: string): 0 | 4 | 6 {
  const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (quad) return quad.slice(1).every((part) => Number(part) <= 255 && (part === "0" || !part.startsWith("0"))) ? 4 : 0;
  if (!text.includes(":") || /[^0-9a-fA-F:.%]/.test(text.split("%")[0]!)) return 0;
  try {
    new URL(`http://[${text.split("%")[0]}]/`);
    return 6;
  } catch {
    return 0;
  }
}

/** The system's resolver; node:dns is loaded by the first look-up, not by every start. */
export const systemResolver: Resolver = async (host) => (await import("node:dns/promises")).lookup(host, { all: true, verbatim: true });

/** IPv4 ranges no webhook may reach: this network, private, CGNAT, loopback, link-local (cloud metadata), documentation, benchmarking, multicast, reserved. */
const V4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "an unspecified address"],
  ["10.0.0.0", 8, "a private address"],
  ["100.64.0.0", 10, "a shared (CGNAT) address"],
  ["127.0.0.0", 8, "a loopback address"],
  ["169.254.0.0", 16, "a link-local (cloud metadata) address"],
  ["172.16.0.0", 12, "a private address"],
  ["192.0.0.0", 24, "a reserved address"],
  ["192.0.2.0", 24, "a documentation address"],
  ["192.88.99.0", 24, "a reserved address"],
  ["192.168.0.0", 16, "a private address"],
  ["198.18.0.0", 15, "a benchmarking address"],
  ["198.51.100.0", 24, "a documentation address"],
  ["203.0.113.0", 24, "a documentation address"],
  ["224.0.0.0", 4, "a multicast address"],
  ["240.0.0.0", 4, "a reserved address"],
];

function v4Number(address: string): number {
  return address.split(".").reduce((n, part) => n * 256 + Number(part), 0);
}

function v4Reason(address: string): string | null {
  const n = v4Number(address);
  for (const [base, bits, reason] of V4_BLOCKED) {
    const size = 2 ** (32 - bits);
    const start = v4Number(base);
    if (n >= start && n < start + size) return reason;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included). */
function v6Groups(address: string): number[] {
  let text = address.toLowerCase().split("%")[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes("::") ? text.split("::") : [text, undefined];
  const left = head ? head.split(":").filter(Boolean) : [];
  const right = tail ? tail.split(":").filter(Boolean) : [];
  const missing = tail === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array(missing).fill("0"), ...right].map((g) => parseInt(g, 16));
}

function v6Reason(address: string): string | null {
  const g = v6Groups(address);
  const embeddedV4 = () => `${g[6]! >> 8}.${g[6]! & 255}.${g[7]! >> 8}.${g[7]! & 255}`;
  if (g.every((x) => x === 0)) return "an unspecified address";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "a loopback address";
  // ::ffff:a.b.c.d reaches the IPv4 host a.b.c.d: refused whatever it is, as a way round the IPv4 checks.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return "an IPv4-mapped address";
  if (g.slice(0, 6).every((x) => x === 0)) return "an IPv4-compatible address";
  if (g[0] === 0x64 && g[1] === 0xff9b) return v4Reason(embeddedV4()) ?? null;
  if (g[0] === 0x2002) return v4Reason(`${g[1]! >> 8}.${g[1]! & 255}.${g[2]! >> 8}.${g[2]! & 255}`);
  if ((g[0]! & 0xfe00) === 0xfc00) return "a private (unique local) address";
  if ((g[0]! & 0xffc0) === 0xfe80) return "a link-local address";
  if ((g[0]! & 0xffc0) === 0xfec0) return "a site-local address";
  if ((g[0]! & 0xff00) === 0xff00) return "a multicast address";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address";
  if (g[0] === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "a discard address";
  return null;
}

/**
 * The network a client address stands for, one per household or host: an IPv4 address itself (an IPv4-mapped
 * IPv6 one as IPv4), an IPv6 address's /64, which one subscriber holds whole; anything else as given.
 */
export function clientNetwork(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIP(address) !== 6) return address;
  return `${v6Groups(address)
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(":")}::/64`;
}

/** Why `address` (a literal IPv4 or IPv6 address) is no place for a webhook, or null when it is public. */
export function blockedAddressReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return v4Reason(bare);
  if (family === 6) return v6Reason(bare);
  return "not an IP address";
}

/** Names that are this machine or a cloud's metadata service, whatever DNS says. */
function blockedName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || name === "metadata.google.internal" || name === "metadata";
}

/** Why a URL's host is refused without a look-up (a special address written out, or a name such as localhost), or null. */
export function hostBlockedReason(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0) {
    const reason = blockedAddressReason(bare);
    return reason ? `${bare} is ${reason}` : null;
  }
  return blockedName(bare) ? `${bare} is this machine` : null;
}

/** A refused address: the reason, for the API's message or the delivery log. */
export class BlockedAddress extends Error {}

/**
 * The addresses `host` (a URL's hostname) may be reached at, each checked: a literal address is checked as
 * it is; a name is resolved and every address it has must be public, so that one private answer among public
 * ones cannot slip through. The caller connects to these very addresses (no second look-up to rebind).
 */
export async function checkedAddresses(host: string, resolve: Resolver): Promise<{ address: string; family: number }[]> {
  const bare = host.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family !== 0) {
    const reason = blockedAddressReason(bare);
    if (reason) throw new BlockedAddress(`${bare} is ${reason}`);
    return [{ address: bare, family }];
  }
  if (blockedName(bare)) throw new BlockedAddress(`${bare} is this machine`);
  const found = await resolve(bare);
  if (found.length === 0) throw new Error(`${bare} has no address`);
  for (const { address } of found) {
    const reason = blockedAddressReason(address);
    if (reason) throw new BlockedAddress(`${bare} resolves to ${address}, ${reason}`);
  }
  return found;
}
