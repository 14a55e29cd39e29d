import type { Resolver } from "../../src/lib/address.ts";

/**
 * A resolver with a fixed table, for tests of the address checks: names of this table resolve as written,
 * any other name does not resolve (the machine has no DNS to ask).
 */
export function tableResolver(table: Record<string, string[]>): Resolver {
  return async (host) => {
    const addresses = table[host.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

/** Names the webhook tests use: public ones, and ones that point at this machine or a private network. */
export const TEST_DNS = tableResolver({
  "hooks.example.com": ["93.184.215.14"],
  "chat.example.com": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
  "rebind.example.com": ["127.0.0.1"],
  "intranet.example.com": ["10.0.0.5"],
  "mixed.example.com": ["93.184.215.14", "192.168.1.10"],
  "metadata.example.com": ["169.254.169.254"],
  "mapped.example.com": ["::ffff:127.0.0.1"],
});
