import { ApiError } from "../errors.ts";

export type Mode = "live" | "test";
export type Permission = "read" | "write" | "delete" | "admin";
export const PERMISSIONS: readonly Permission[] = ["read", "write", "delete", "admin"];

/** Who is acting: an account, in one mode, with permissions, and for a form-level key the one form it may reach. */
export interface Principal {
  accountId: string;
  mode: Mode;
  permissions: ReadonlySet<Permission>;
  /** Set for a form-level (`fk_`) key: the only form it reaches. */
  formId: string | null;
  keyId: string | null;
  /** Who acts, as the activity log names them: `user:<email>`, `key:<prefix>`; absent: the local CLI (`cli`). */
  actor?: string;
}

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
