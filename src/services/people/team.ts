import { and, asc, eq, gt, inArray, isNull } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { forms, invitations, users, type InvitationRow } from "../../db/schema.ts";
import { INVITATION_DAYS } from "../../domain/limits.ts";
import { DAY_MS } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { iso } from "../../lib/time.ts";
import { recordActivity } from "./activity.ts";
import { can, type Role } from "./roles.ts";
import { checkPassword, hashPassword, newUserRow, toUser, userEmail, type User } from "./users.ts";

/** How long an invitation link works (docs/dashboard.md, "Team and roles"). */
const INVITATION_MS = INVITATION_DAYS * DAY_MS;

/** Who changes the team: their account and role, their user id (none for the local CLI) and their name in the log. */
export interface TeamActor {
  accountId: string;
  role: Role;
  userId: string | null;
  actor?: string;
}

/** A pending invitation, as the users page lists it: never its token. */
export interface Invitation {
  id: string;
  email: string;
  role: Role;
  formIds: string[] | null;
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** What a new member is given: a role and, for an editor or viewer, the forms they are limited to. */
export interface Membership {
  role: Role;
  formIds?: string[] | null;
}

const sha256 = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");
const forbidden = (message: string) => new ApiError("forbidden", message);

const toInvitation = (row: InvitationRow): Invitation => ({
  id: row.tokenHash.slice(0, 24),
  email: row.email,
  role: row.role as Role,
  formIds: row.formIds === null ? null : (JSON.parse(row.formIds) as string[]),
  invitedBy: row.invitedBy,
  createdAt: iso(row.createdAt),
  expiresAt: iso(row.expiresAt),
});

/** The team of an account: invitations by one-time link, roles, removal; every change in the activity log. */
export function teamService(store: Store) {
  /** Refuses unless the actor may give or take `role` (admins manage everyone but owners). */
  function mayManage(actor: TeamActor, role: Role): void {
    if (!can(actor.role, "admin")) throw forbidden("Only an admin or an owner manages users.");
    if (role === "owner" && !can(actor.role, "owner")) throw forbidden("Only an owner can make or change an owner.");
  }

  /** The form limit to store: only editors and viewers are limited, and only to forms of the account. */
  async function formLimit(db: Db, accountId: string, membership: Membership): Promise<string[] | null> {
    if (membership.role === "admin" || membership.role === "owner" || !membership.formIds || membership.formIds.length === 0) return null;
    const found = await db
      .select({ id: forms.id })
      .from(forms)
      .where(and(eq(forms.accountId, accountId), inArray(forms.id, membership.formIds)));
    if (found.length !== new Set(membership.formIds).size) throw new ApiError("invalid_parameter", "Choose forms of this account.", { field: "formIds" });
    return found.map((f) => f.id);
  }

  async function memberOf(db: Db, accountId: string, userId: string) {
    const [row] = await db
      .select()
      .from(users)
      .where(and(eq(users.id, userId), eq(users.accountId, accountId)));
    if (!row) throw new ApiError("not_found", `No user ${userId} in this account.`);
    return row;
  }

  async function ownersLeft(db: Db, accountId: string): Promise<number> {
    return (
      await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.accountId, accountId), eq(users.role, "owner")))
    ).length;
  }

  return {
    /** Makes a one-time invitation link's token (valid INVITATION_DAYS) for `email` to join with `membership`. */
    async invite(actor: TeamActor, emailInput: string, membership: Membership): Promise<{ token: string; invitation: Invitation }> {
      mayManage(actor, membership.role);
      const email = userEmail(emailInput);
      const token = randomBase62(43);
      const row = await store.write(async (tx) => {
        const [clash] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
        if (clash) throw new ApiError("invalid_parameter", `There is already a user ${email}.`, { field: "email" });
        const now = Date.now();
        const limit = await formLimit(tx, actor.accountId, membership);
        const row: InvitationRow = {
          tokenHash: sha256(token),
          accountId: actor.accountId,
          email,
          role: membership.role,
          formIds: limit ? JSON.stringify(limit) : null,
          invitedBy: actor.actor ?? "cli",
          createdAt: now,
          expiresAt: now + INVITATION_MS,
          usedAt: null,
        };
        await tx.insert(invitations).values(row);
        const scope = limit ? ` on ${limit.length} forms` : "";
        await recordActivity(tx, actor, "user.invite", email, `Invited ${email} as ${membership.role}${scope}.`);
        return row;
      });
      return { token, invitation: toInvitation(row) };
    },

    /** The account's invitations not used and not expired, oldest first. */
    async invitations(accountId: string): Promise<Invitation[]> {
      const rows = await store.db
        .select()
        .from(invitations)
        .where(and(eq(invitations.accountId, accountId), isNull(invitations.usedAt), gt(invitations.expiresAt, Date.now())))
        .orderBy(asc(invitations.createdAt));
      return rows.map(toInvitation);
    },

    /** Withdraws a pending invitation: its link stops working. */
    async revokeInvitation(actor: TeamActor, id: string): Promise<void> {
      await store.write(async (tx) => {
        const rows = await tx
          .select()
          .from(invitations)
          .where(and(eq(invitations.accountId, actor.accountId), isNull(invitations.usedAt)));
        const row = rows.find((r) => r.tokenHash.slice(0, 24) === id);
        if (!row) throw new ApiError("not_found", "No such invitation.");
        mayManage(actor, row.role as Role);
        await tx.update(invitations).set({ usedAt: Date.now(), expiresAt: Date.now() }).where(eq(invitations.tokenHash, row.tokenHash));
        await recordActivity(tx, actor, "user.uninvite", row.email, `Withdrew the invitation of ${row.email}.`);
      });
    },

    /** The invitation behind a link's token when it is unused and unexpired, else null (looking does not use it). */
    async checkInvitation(token: string): Promise<Invitation | null> {
      const [row] = await store.db
        .select()
        .from(invitations)
        .where(and(eq(invitations.tokenHash, sha256(token)), isNull(invitations.usedAt), gt(invitations.expiresAt, Date.now())));
      return row ? toInvitation(row) : null;
    },

    /** Uses up an invitation and makes its user with the chosen password; null when the link is used, expired or unknown. */
    async accept(token: string, password: string): Promise<User | null> {
      checkPassword(password);
      const passwordHash = await hashPassword(password);
      return store.write(async (tx) => {
        const now = Date.now();
        const [invitation] = await tx
          .update(invitations)
          .set({ usedAt: now })
          .where(and(eq(invitations.tokenHash, sha256(token)), isNull(invitations.usedAt), gt(invitations.expiresAt, now)))
          .returning();
        if (!invitation) return null;
        const [clash] = await tx.select({ id: users.id }).from(users).where(eq(users.email, invitation.email));
        if (clash) throw new ApiError("invalid_parameter", `There is already a user ${invitation.email}.`, { field: "email" });
        const row = newUserRow(invitation.accountId, invitation.email, passwordHash, invitation.role as Role);
        row.formIds = invitation.formIds;
        await tx.insert(users).values(row);
        const who = { accountId: row.accountId, actor: `user:${row.email}` };
        await recordActivity(tx, who, "user.join", row.id, `Joined as ${row.role}, invited by ${invitation.invitedBy}.`);
        return toUser(row);
      });
    },

    /** The account's users, oldest first. */
    async members(accountId: string): Promise<User[]> {
      const rows = await store.db.select().from(users).where(eq(users.accountId, accountId)).orderBy(asc(users.createdAt), asc(users.id));
      return rows.map(toUser);
    },

    /** Gives a user another role (and form limit); the account keeps at least one owner. */
    async setRole(actor: TeamActor, userId: string, membership: Membership): Promise<User> {
      return store.write(async (tx) => {
        const row = await memberOf(tx, actor.accountId, userId);
        if (row.id === actor.userId) throw forbidden("You cannot change your own role: ask another admin or owner.");
        mayManage(actor, row.role as Role);
        mayManage(actor, membership.role);
        if (row.role === "owner" && membership.role !== "owner" && (await ownersLeft(tx, actor.accountId)) <= 1) {
          throw new ApiError("invalid_parameter", "The account must keep an owner: make another owner first.", { field: "role" });
        }
        const limit = await formLimit(tx, actor.accountId, membership);
        const [updated] = await tx
          .update(users)
          .set({ role: membership.role, formIds: limit ? JSON.stringify(limit) : null })
          .where(eq(users.id, row.id))
          .returning();
        const scope = limit ? ` on ${limit.length} forms` : "";
        await recordActivity(tx, actor, "user.role", row.id, `Made ${row.email} ${membership.role}${scope} (was ${row.role}).`);
        return toUser(updated!);
      });
    },

    /** Removes a user of the account; their sessions end at once. The last owner stays. */
    async remove(actor: TeamActor, userId: string): Promise<User> {
      return store.write(async (tx) => {
        const row = await memberOf(tx, actor.accountId, userId);
        if (row.id === actor.userId) throw forbidden("You cannot remove yourself: ask another admin or owner.");
        mayManage(actor, row.role as Role);
        if (row.role === "owner" && (await ownersLeft(tx, actor.accountId)) <= 1) {
          throw new ApiError("invalid_parameter", "The account must keep an owner.", { field: "role" });
        }
        await tx.delete(users).where(eq(users.id, row.id));
        await recordActivity(tx, actor, "user.remove", row.id, `Removed ${row.role} ${row.email}.`);
        return toUser(row);
      });
    },
  };
}
