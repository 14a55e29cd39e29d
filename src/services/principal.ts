import { type Mode, type Permission, PERMISSIONS, type Principal } from "../domain/types.ts";
import { ApiError, type ErrorCode } from "../errors.ts";

/** admin implies read, write and delete. */
export const hasPermission = (principal: Principal, permission: Permission) => principal.permissions.has(permission) || principal.permissions.has("admin");

/** Throws 403 unless the principal holds `permission`. */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!hasPermission(principal, permission)) {
    throw new ApiError("forbidden", `This key lacks the ${permission} permission.`);
  }
}

/** The trusted operator of the local CLI: every permission on one account, in one mode. */
export function operator(accountId: string, mode: Mode): Principal {
  return { accountId, mode, permissions: new Set(PERMISSIONS), formId: null, keyId: null };
}

/** Parses `read,write` (or an array) into permissions, refusing unknown names. */
export function parsePermissions(value: string | readonly string[], field = "permissions"): Permission[] {
  const names = (typeof value === "string" ? value.split(",") : value).map((p) => p.trim()).filter(Boolean);
  if (names.length === 0) throw new ApiError("invalid_body", `${field} must name at least one of ${PERMISSIONS.join(", ")}.`, { field });
  for (const name of names) {
    if (!PERMISSIONS.includes(name as Permission)) {
      throw new ApiError("invalid_body", `Unknown permission "${name}": use ${PERMISSIONS.join(", ")}.`, { field });
    }
  }
  return PERMISSIONS.filter((p) => names.includes(p));
}

/**
 * Acts as the account's operator in one mode, then in the other ("try the live key, then the test key"):
 * only an ApiError with the code `notFound` moves on to the next mode; anything else is thrown at once, and
 * the second mode's not-found is the answer when neither has it.
 */
export async function inEitherMode<T>(accountId: string, notFound: ErrorCode, act: (principal: Principal) => Promise<T>, first: Mode = "live"): Promise<T> {
  try {
    return await act(operator(accountId, first));
  } catch (error) {
    if (!(error instanceof ApiError && error.code === notFound)) throw error;
  }
  return act(operator(accountId, first === "live" ? "test" : "live"));
}
