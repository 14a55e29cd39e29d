import { ApiError } from "../../errors.ts";

/** A dashboard user's role in the account (docs/dashboard.md, "Team and roles"), from least to most. */
export const ROLES = ["viewer", "editor", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

/**
 * What a page or an action needs: `read` (every role), `edit` (forms, submissions, webhooks: editor and up),
 * `admin` (keys, users, the activity log, erasure: admin and up), `owner` (other owners: owners only).
 */
export type Capability = "read" | "edit" | "admin" | "owner";
const NEED: Record<Capability, number> = { read: 0, edit: 1, admin: 2, owner: 3 };

/** True when `role` may do what `capability` names. */
export const can = (role: Role, capability: Capability): boolean => ROLES.indexOf(role) >= NEED[capability];

/** A role from text, refused unless it is one of the four. */
export function parseRole(value: string, field = "role"): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new ApiError("invalid_parameter", `${field} must be one of ${ROLES.join(", ")}.`, { field });
  return value as Role;
}

/** What each role may do, in words, for the users page and the CLI's help. */
export const ROLE_HELP: Record<Role, string> = {
  viewer: "reads forms, submissions and deliveries",
  editor: "also changes forms, submissions and webhooks",
  admin: "also keys, users, the activity log and erasure",
  owner: "also other owners",
};
