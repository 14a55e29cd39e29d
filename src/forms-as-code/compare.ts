// How a value of the file is compared with what the API shows, and how a change is printed. Pure functions.

type Json = Record<string, unknown>;

/** A plain object (not an array, not null). */
export const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);

/** Nothing there: undefined, null, an empty list, or an object with nothing in it. */
export const isEmpty = (value: unknown): boolean =>
  value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isObject(value) && Object.values(value).every(isEmpty));

/**
 * Whether the file's value and the API's agree. Lists match item by item; objects on every key of either side
 * (`exact`), or on the keys the file gives (`given`: the API fills the rest in). A secret (its path in `secrets`)
 * is not compared: the API never shows it. Nothing matches nothing, whatever its kind (null, [], {}).
 */
export function same(desired: unknown, current: unknown, options: { mode: "exact" | "given"; secrets?: Set<string>; path?: string }): boolean {
  if (isEmpty(desired) && isEmpty(current)) return true;
  const path = options.path ?? "";
  if (Array.isArray(desired) || Array.isArray(current)) {
    if (!Array.isArray(desired) || !Array.isArray(current) || desired.length !== current.length) return false;
    return desired.every((item, i) => same(item, current[i], { ...options, mode: "exact" }));
  }
  if (isObject(desired) && isObject(current)) {
    const keys = options.mode === "exact" ? new Set([...Object.keys(desired), ...Object.keys(current)]) : new Set(Object.keys(desired));
    for (const key of keys) {
      const at = path ? `${path}.${key}` : key;
      if (options.secrets?.has(at)) continue;
      if (!same(desired[key], current[key], { ...options, path: at })) return false;
    }
    return true;
  }
  return desired === current;
}

/** The value with every secret (by path, from `path`) shown as `(sensitive)`. */
export function masked(value: unknown, secrets: Set<string>, path: string): unknown {
  if (Array.isArray(value)) return value.map((item) => masked(item, secrets, path));
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => {
      const at = path ? `${path}.${key}` : key;
      return [key, secrets.has(at) && inner !== undefined ? "(sensitive)" : masked(inner, secrets, at)];
    }),
  );
}

/** A value as one line of a plan: JSON, with `(sensitive)` unquoted. */
export const shown = (value: unknown): string => (value === undefined ? "(none)" : JSON.stringify(value).replaceAll('"(sensitive)"', "(sensitive)"));

/** An environment variable's name for a secret of the file: `FORMSVC_CONTACT_CAPTCHA_SECRET`, `…_BOT_TOKEN` for `botToken`. */
export const referenceName = (...parts: (string | number)[]) =>
  ["FORMSVC", ...parts]
    .map((part) =>
      String(part)
        .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
        .toUpperCase()
        .replace(/[^A-Z0-9]+/g, "_"),
    )
    .join("_")
    .replace(/_+/g, "_");
