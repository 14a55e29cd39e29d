/**
 * Disposable-email domains from the `disposable-email-domains` package, inside the binary: loaded on first use
 * (only a form that blocks them pays the few MB the list takes), then looked up by the domain and each parent.
 */
let lists: Promise<{ exact: Set<string>; wildcard: Set<string> }> | undefined;

function load() {
  lists ??= Promise.all([import("disposable-email-domains/index.json"), import("disposable-email-domains/wildcard.json")]).then(([exact, wildcard]) => ({
    exact: new Set(exact.default as string[]),
    wildcard: new Set(wildcard.default as string[]),
  }));
  return lists;
}

/** Whether mail at `domain` (lowercase) comes from a throwaway-address service. */
export async function isDisposableDomain(domain: string): Promise<boolean> {
  const { exact, wildcard } = await load();
  if (exact.has(domain)) return true;
  // The wildcard list names services whose every subdomain is disposable.
  for (let dot = domain.indexOf("."); dot !== -1; dot = domain.indexOf(".", dot + 1)) {
    const parent = domain.slice(dot + 1);
    if (wildcard.has(parent) || exact.has(parent)) return true;
  }
  return wildcard.has(domain);
}
