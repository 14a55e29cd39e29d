import { and, asc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { accounts, sessions, signinLinks, users, type UserRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import { randomBase62 } from "../../lib/random.ts";
import { iso } from "../../lib/time.ts";
import { isEmail } from "../../lib/validate.ts";
import { recordActivity } from "./activity.ts";
import type { Role } from "./roles.ts";

/** A dashboard user as lists show it: never the password hash. */
export interface User {
  id: string;
  email: string;
  accountId: string;
  role: Role;
  /** The forms an editor or viewer is limited to; null: every form of the account. */
  formIds: string[] | null;
  createdAt: string;
}

/** A signed-in dashboard session: who, and the token its forms must carry. */
export interface Session {
  user: User;
  csrfToken: string;
  /** Opened by a one-time sign-in link: the password may be set without the current one (recovery). */
  viaLink: boolean;
  /** The session's id in the Sessions list (a prefix of its token's hash, never the token). */
  id: string;
  /** The account requires two-step sign-in and the user has not set it up: every page but its set-up is closed. */
  mustSetUpTwoStep: boolean;
}

/** A one-time link: `setup` (the first user), `signin` (recovery), `second` (a correct password waiting for its code). */
export type LinkKind = "setup" | "signin" | "second";

/** How long the second step of a sign-in waits for its code after the password. */
export const SECOND_STEP_MS = 5 * 60 * 1000;

export const SETUP_LINK_MS = 60 * 60 * 1000;
export const SIGNIN_LINK_MS = 15 * 60 * 1000;
export const SESSION_IDLE_MS = 14 * 24 * 60 * 60 * 1000;
/** How stale lastSeenAt may get before a request refreshes it: one write a minute per session at most. */
const TOUCH_MS = 60 * 1000;
const MIN_PASSWORD = 8;
const MAX_PASSWORD = 1024;

export const toUser = (row: UserRow): User => ({
  id: row.id,
  email: row.email,
  accountId: row.accountId,
  role: row.role as Role,
  formIds: row.formIds === null ? null : (JSON.parse(row.formIds) as string[]),
  createdAt: iso(row.createdAt),
});

const sha256 = (token: string) => new Bun.CryptoHasher("sha256").update(token).digest("hex");

/** A session's id as pages show it: the first 24 hex digits of its token's hash (the token cannot be had from it). */
export const sessionId = (tokenHash: string) => tokenHash.slice(0, 24);

/** A new user's row: owners made by the CLI or the setup link, any role by an invitation. */
export function newUserRow(accountId: string, email: string, passwordHash: string, role: Role = "owner", formIds: string[] | null = null): UserRow {
  const now = Date.now();
  return {
    id: newId("user", now),
    accountId,
    email,
    passwordHash,
    createdAt: now,
    passwordChangedAt: now,
    role,
    formIds: formIds ? JSON.stringify(formIds) : null,
    totpSecret: null,
    totpPending: null,
    totpLastStep: null,
  };
}

/** Throws unless the password is of a length the dashboard accepts. */
export function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD)
    throw new ApiError("invalid_parameter", `The password must be at least ${MIN_PASSWORD} characters.`, { field: "password" });
  if (password.length > MAX_PASSWORD)
    throw new ApiError("invalid_parameter", `The password must be at most ${MAX_PASSWORD} characters.`, { field: "password" });
}

/** The argon2id hash of a password the dashboard stores. */
export const hashPassword = (password: string) => Bun.password.hash(password, { algorithm: "argon2id" });

/** A normalised email for sign-in: trimmed and lowercased, refused unless it is one plain address. */
export function userEmail(value: string): string {
  const email = value.trim().toLowerCase();
  if (!isEmail(email) || email.length > 254) throw new ApiError("invalid_parameter", "Enter an email address such as you@example.com.", { field: "email" });
  return email;
}

// Verified against when no user has the email, so that a wrong email costs the same time as a wrong password.
let decoyHash: Promise<string> | null = null;
const decoy = () => (decoyHash ??= Bun.password.hash(randomBase62(32), { algorithm: "argon2id" }));

/** Makes the decoy hash ahead of the first sign-in, so that the first wrong email is not the slow one. */
export const warmDecoy = () => void decoy();

/** Dashboard users, their one-time links and their sessions. */
export function usersService(store: Store) {
  async function findByEmail(email: string): Promise<UserRow | undefined> {
    const [row] = await store.db.select().from(users).where(eq(users.email, email));
    return row;
  }

  return {
    async count(): Promise<number> {
      const rows = await store.db.select({ id: users.id }).from(users).limit(1);
      return rows.length;
    },

    async list(): Promise<User[]> {
      const rows = await store.db.select().from(users).orderBy(asc(users.createdAt), asc(users.id));
      return rows.map(toUser);
    },

    async findByEmail(email: string): Promise<User | null> {
      const row = await findByEmail(userEmail(email));
      return row ? toUser(row) : null;
    },

    /** Makes a user of `accountId` (an owner unless `role` says otherwise) with an argon2id hash of the password; an email in use is refused. */
    async create(accountId: string, emailInput: string, password: string, role: Role = "owner", formIds: string[] | null = null): Promise<User> {
      const email = userEmail(emailInput);
      checkPassword(password);
      const passwordHash = await hashPassword(password);
      return store.write(async (tx) => {
        const [account] = await tx.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, accountId));
        if (!account) throw new ApiError("not_found", `No account ${accountId}.`);
        const [clash] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
        if (clash) throw new ApiError("invalid_parameter", `There is already a user ${email}.`, { field: "email" });
        const row = newUserRow(accountId, email, passwordHash, role, formIds);
        await tx.insert(users).values(row);
        await recordActivity(tx, { accountId }, "user.create", row.id, `Made ${role} ${email}.`);
        return toUser(row);
      });
    },

    /** Removes a user with all their sessions and links. */
    async remove(emailInput: string): Promise<User> {
      const email = userEmail(emailInput);
      return store.write(async (tx) => {
        const [gone] = await tx.delete(users).where(eq(users.email, email)).returning();
        if (!gone) throw new ApiError("not_found", `No user ${email}.`);
        await recordActivity(tx, { accountId: gone.accountId }, "user.remove", gone.id, `Removed ${gone.role} ${gone.email}.`);
        return toUser(gone);
      });
    },

    /**
     * The user with this email and password, or null. An unknown email is checked against a decoy hash, so
     * that it takes as long as a wrong password and the answer cannot tell them apart.
     */
    async verifyPassword(emailInput: string, password: string): Promise<User | null> {
      const email = emailInput.trim().toLowerCase();
      const row = isEmail(email) ? await findByEmail(email) : undefined;
      const ok = await Bun.password.verify(password.slice(0, MAX_PASSWORD), row?.passwordHash ?? (await decoy()));
      return row && ok ? toUser(row) : null;
    },

    /** Sets a new password and ends every session of the user (the caller signs the person in again). */
    async changePassword(userId: string, current: string | null, next: string): Promise<void> {
      const [row] = await store.db.select().from(users).where(eq(users.id, userId));
      if (!row) throw new ApiError("not_found", "This user no longer exists.");
      if (current !== null && !(await Bun.password.verify(current.slice(0, MAX_PASSWORD), row.passwordHash))) {
        throw new ApiError("invalid_parameter", "That is not your current password.", { field: "current" });
      }
      checkPassword(next);
      const passwordHash = await Bun.password.hash(next, { algorithm: "argon2id" });
      await store.write(async (tx) => {
        await tx.update(users).set({ passwordHash, passwordChangedAt: Date.now() }).where(eq(users.id, userId));
        await tx.delete(sessions).where(eq(sessions.userId, userId));
      });
    },

    /** A one-time link token: `setup` (no user yet) or `signin` for a user; only its hash is stored. */
    async createLink(kind: LinkKind, userId: string | null, validMs: number): Promise<string> {
      const token = randomBase62(43);
      const now = Date.now();
      await store.write((tx) =>
        tx.insert(signinLinks).values({ tokenHash: sha256(token), kind, userId, createdAt: now, expiresAt: now + validMs, usedAt: null }),
      );
      return token;
    },

    /**
     * True when the link is of this kind, unused and unexpired (it is not used up by looking). A setup link
     * is dead once any user exists, however that user was made: it only ever makes the first.
     */
    async checkLink(kind: LinkKind, token: string): Promise<boolean> {
      if (kind === "setup" && (await store.db.select({ id: users.id }).from(users).limit(1)).length > 0) return false;
      const [row] = await store.db
        .select({ kind: signinLinks.kind })
        .from(signinLinks)
        .where(and(eq(signinLinks.tokenHash, sha256(token)), isNull(signinLinks.usedAt), gt(signinLinks.expiresAt, Date.now())));
      return row?.kind === kind;
    },

    /** The user a link of this kind names, while it is unused and unexpired (looking does not use it up). */
    async linkUser(kind: LinkKind, token: string): Promise<UserRow | null> {
      const [row] = await store.db
        .select({ user: users })
        .from(signinLinks)
        .innerJoin(users, eq(users.id, signinLinks.userId))
        .where(and(eq(signinLinks.tokenHash, sha256(token)), eq(signinLinks.kind, kind), isNull(signinLinks.usedAt), gt(signinLinks.expiresAt, Date.now())));
      return row?.user ?? null;
    },

    /**
     * Uses up a one-time link and, in the same transaction, does what it is for: a `setup` link makes the
     * first user of the default account, a `signin` link names its user. Null when the link is used, expired or unknown.
     */
    async useLink(kind: LinkKind, token: string, setup?: { email: string; password: string; accountId: string }): Promise<User | null> {
      const email = setup ? userEmail(setup.email) : "";
      if (setup) checkPassword(setup.password);
      const passwordHash = setup ? await Bun.password.hash(setup.password, { algorithm: "argon2id" }) : "";
      return store.write(async (tx) => {
        const now = Date.now();
        const [link] = await tx
          .update(signinLinks)
          .set({ usedAt: now })
          .where(and(eq(signinLinks.tokenHash, sha256(token)), eq(signinLinks.kind, kind), isNull(signinLinks.usedAt), gt(signinLinks.expiresAt, now)))
          .returning();
        if (!link) return null;
        if (kind === "setup" && (await tx.select({ id: users.id }).from(users).limit(1)).length > 0) return null;
        if (kind !== "setup") {
          const [row] = await tx
            .select()
            .from(users)
            .where(eq(users.id, link.userId ?? ""));
          return row ? toUser(row) : null;
        }
        const [clash] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
        if (clash) throw new ApiError("invalid_parameter", `There is already a user ${email}.`, { field: "email" });
        const row = newUserRow(setup!.accountId, email, passwordHash);
        await tx.insert(users).values(row);
        await recordActivity(tx, { accountId: row.accountId, actor: `user:${email}` }, "user.create", row.id, `Set up the first user, ${email}, as owner.`);
        return toUser(row);
      });
    },

    /** Opens a session for the user: the cookie's token (returned once, stored hashed) and its CSRF token. */
    async createSession(
      userId: string,
      { viaLink = false, userAgent = null, ip = null }: { viaLink?: boolean; userAgent?: string | null; ip?: string | null } = {},
    ): Promise<{ token: string; csrfToken: string }> {
      const token = randomBase62(43);
      const csrfToken = randomBase62(32);
      const now = Date.now();
      await store.write(async (tx) => {
        await tx.insert(sessions).values({
          tokenHash: sha256(token),
          userId,
          csrfToken,
          viaLink,
          createdAt: now,
          lastSeenAt: now,
          userAgent: userAgent?.slice(0, 500) ?? null,
          ip,
        });
        // Sessions idle past their time, and expired sign-in links (serve makes a setup link at every start while
        // there is no user), are swept as new sessions open, so neither table grows for ever; an expired link
        // is refused the same whether its row is there or not. Here, not at serve's start, which stays light.
        await tx.delete(sessions).where(lt(sessions.lastSeenAt, now - SESSION_IDLE_MS));
        await tx.delete(signinLinks).where(lt(signinLinks.expiresAt, now));
      });
      return { token, csrfToken };
    },

    /** The session behind a cookie's token, or null when unknown or idle for 14 days; using it keeps it alive. */
    async session(token: string): Promise<Session | null> {
      const hash = sha256(token);
      const [row] = await store.db
        .select({
          lastSeenAt: sessions.lastSeenAt,
          csrfToken: sessions.csrfToken,
          viaLink: sessions.viaLink,
          user: users,
          required: accounts.requireTwoStep,
        })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .innerJoin(accounts, eq(accounts.id, users.accountId))
        .where(eq(sessions.tokenHash, hash));
      const now = Date.now();
      if (!row || row.lastSeenAt <= now - SESSION_IDLE_MS) return null;
      if (now - row.lastSeenAt > TOUCH_MS) await store.write((tx) => tx.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.tokenHash, hash)));
      return {
        user: toUser(row.user),
        csrfToken: row.csrfToken,
        viaLink: row.viaLink,
        id: sessionId(hash),
        mustSetUpTwoStep: row.required && row.user.totpSecret === null,
      };
    },

    async endSession(token: string): Promise<void> {
      await store.write((tx) => tx.delete(sessions).where(eq(sessions.tokenHash, sha256(token))));
    },
  };
}
