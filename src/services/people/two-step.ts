import { and, eq, isNull, lt, or } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { accounts, recoveryCodes, users, type UserRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { recordActivity } from "./activity.ts";

/** RFC 6238 as every authenticator app reads it: SHA-1, 6 digits, 30-second steps (docs/dashboard.md, "Two-step sign-in"). */
const TOTP = { algorithm: "SHA1", digits: 6, period: 30 } as const;
/** A code of the step before or after the server's clock is accepted: phones and servers drift. */
const DRIFT_STEPS = 1;
/** 160 bits, the length RFC 4226 recommends for the shared secret. */
const SECRET_BYTES = 20;
export const RECOVERY_CODES = 10;
const ISSUER = "formsvc";

/** Who turns two-step sign-in on or off, for the activity log: the account and `user:<email>` (the local CLI has none). */
export interface StepActor {
  accountId: string;
  actor?: string;
}

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
/** A recovery code as typed: spaces and dashes dropped, case ignored. */
const normalRecovery = (code: string) => code.replace(/[\s-]/g, "").toLowerCase();
const wrongCode = () => new ApiError("invalid_parameter", "That code is not right. Enter the 6 digits your app shows now.", { field: "code" });

/** The TOTP of a secret; otpauth loads with the first two-step sign-in, never at serve's start. */
async function totpOf(secret: string, email: string) {
  const { TOTP: Totp, Secret } = await import("otpauth");
  return new Totp({ issuer: ISSUER, label: email, ...TOTP, secret: Secret.fromBase32(secret) });
}

/** The 30-second step a code of `delta` steps from now belongs to. */
const stepOf = (delta: number) => Math.floor(Date.now() / 1000 / TOTP.period) + delta;

/** Ten fresh recovery codes: 10 base62 characters each (about 59 bits), shown as two groups of five. */
const newRecoveryCodes = () =>
  Array.from({ length: RECOVERY_CODES }, () => {
    const code = randomBase62(10).toLowerCase();
    return `${code.slice(0, 5)}-${code.slice(5)}`;
  });

/** Two-step sign-in with an authenticator app: set-up, codes and recovery codes, and the account's requirement. */
export function twoStepService(store: Store) {
  async function row(userId: string): Promise<UserRow> {
    const [found] = await store.db.select().from(users).where(eq(users.id, userId));
    if (!found) throw new ApiError("not_found", "This user no longer exists.");
    return found;
  }

  /** Accepts a current code once: the step it belongs to is recorded, and a code of that step or earlier is refused. */
  async function useTotp(user: UserRow, code: string): Promise<boolean> {
    if (!user.totpSecret || !/^\d{6}$/.test(code)) return false;
    const delta = (await totpOf(user.totpSecret, user.email)).validate({ token: code, window: DRIFT_STEPS });
    if (delta === null) return false;
    const step = stepOf(delta);
    // One conditional write: of two requests with the same code, only one moves the step on.
    const moved = await store.write((tx) =>
      tx
        .update(users)
        .set({ totpLastStep: step })
        .where(and(eq(users.id, user.id), or(isNull(users.totpLastStep), lt(users.totpLastStep, step))))
        .returning({ id: users.id }),
    );
    return moved.length === 1;
  }

  /** Uses up a recovery code of the user; true when it was one and unused. */
  async function useRecovery(user: UserRow, code: string): Promise<boolean> {
    const normal = normalRecovery(code);
    if (!/^[0-9a-z]{10}$/.test(normal)) return false;
    return store.write(async (tx) => {
      const hash = sha256(`${normal.slice(0, 5)}-${normal.slice(5)}`);
      const used = await tx
        .update(recoveryCodes)
        .set({ usedAt: Date.now() })
        .where(and(eq(recoveryCodes.codeHash, hash), eq(recoveryCodes.userId, user.id), isNull(recoveryCodes.usedAt)))
        .returning({ hash: recoveryCodes.codeHash });
      if (used.length === 0) return false;
      await recordActivity(tx, { accountId: user.accountId, actor: `user:${user.email}` }, "user.recovery_code", user.id, "Signed in with a recovery code.");
      return true;
    });
  }

  /** Clears the secret and the recovery codes, with the log's entry. */
  async function turnOff(actor: StepActor, user: UserRow, summary: string): Promise<void> {
    await store.write(async (tx) => {
      await tx.update(users).set({ totpSecret: null, totpPending: null, totpLastStep: null }).where(eq(users.id, user.id));
      await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, user.id));
      await recordActivity(tx, actor, "user.2fa_off", user.id, summary);
    });
  }

  return {
    /** Whether two-step sign-in is on for the user, and how many unused recovery codes are left. */
    async status(userId: string): Promise<{ on: boolean; recoveryLeft: number }> {
      const user = await row(userId);
      const codes = await store.db
        .select({ hash: recoveryCodes.codeHash })
        .from(recoveryCodes)
        .where(and(eq(recoveryCodes.userId, userId), isNull(recoveryCodes.usedAt)));
      return { on: user.totpSecret !== null, recoveryLeft: codes.length };
    },

    /** The secret being set up (a new one unless one is pending) and its otpauth:// address for the QR code. */
    async setup(userId: string, { fresh = false } = {}): Promise<{ secret: string; uri: string }> {
      const user = await row(userId);
      if (user.totpSecret) throw new ApiError("invalid_parameter", "Two-step sign-in is already on.");
      let secret = fresh ? null : user.totpPending;
      if (!secret) {
        const { Secret } = await import("otpauth");
        secret = new Secret({ size: SECRET_BYTES }).base32;
        await store.write((tx) => tx.update(users).set({ totpPending: secret }).where(eq(users.id, userId)));
      }
      return { secret, uri: (await totpOf(secret, user.email)).toString() };
    },

    /** Turns two-step sign-in on after a correct code of the pending secret; the recovery codes, returned once. */
    async enable(actor: StepActor, userId: string, code: string): Promise<string[]> {
      const user = await row(userId);
      if (user.totpSecret) throw new ApiError("invalid_parameter", "Two-step sign-in is already on.");
      if (!user.totpPending) throw new ApiError("invalid_parameter", "Start the set-up again: there is no code to check.", { field: "code" });
      const delta = (await totpOf(user.totpPending, user.email)).validate({ token: code.trim(), window: DRIFT_STEPS });
      if (delta === null) throw wrongCode();
      const codes = newRecoveryCodes();
      await store.write(async (tx) => {
        await tx
          .update(users)
          .set({ totpSecret: user.totpPending, totpPending: null, totpLastStep: stepOf(delta) })
          .where(eq(users.id, userId));
        await tx.delete(recoveryCodes).where(eq(recoveryCodes.userId, userId));
        await tx.insert(recoveryCodes).values(codes.map((c) => ({ codeHash: sha256(c), userId, usedAt: null })));
        await recordActivity(tx, actor, "user.2fa_on", userId, `Turned on two-step sign-in for ${user.email}.`);
      });
      return codes;
    },

    /**
     * The second step of a sign-in: a current code (once per 30-second step) or an unused recovery code.
     * False for anything else, which the caller counts as a wrong try.
     */
    async verify(userId: string, code: string): Promise<boolean> {
      const user = await row(userId);
      const given = code.trim();
      if (/^\d{6}$/.test(given)) return useTotp(user, given);
      return useRecovery(user, given);
    },

    /** Turns two-step sign-in off: a current code (or an unused recovery code) proves the person holds it. */
    async disable(actor: StepActor, userId: string, code: string): Promise<void> {
      const user = await row(userId);
      if (!user.totpSecret) return;
      const given = code.trim();
      if (!(/^\d{6}$/.test(given) ? await useTotp(user, given) : await useRecovery(user, given))) throw wrongCode();
      await turnOff(actor, user, `Turned off two-step sign-in for ${user.email}.`);
    },

    /** Turns two-step sign-in off without a code: the local CLI's `users reset-2fa`, for a locked-out user. */
    async reset(email: string): Promise<boolean> {
      const [user] = await store.db.select().from(users).where(eq(users.email, email.trim().toLowerCase()));
      if (!user) throw new ApiError("not_found", `No dashboard user ${email}.`);
      if (!user.totpSecret && !user.totpPending) return false;
      await turnOff({ accountId: user.accountId }, user, `Reset two-step sign-in of ${user.email} (locked out).`);
      return true;
    },

    /** Whether the account requires two-step sign-in of every member. */
    async required(accountId: string): Promise<boolean> {
      const [found] = await store.db.select({ on: accounts.requireTwoStep }).from(accounts).where(eq(accounts.id, accountId));
      return found?.on ?? false;
    },

    /** Sets whether every member of the account must sign in with two steps (an admin's choice on the Team page). */
    async setRequired(actor: StepActor, on: boolean): Promise<void> {
      await store.write(async (tx) => {
        await tx.update(accounts).set({ requireTwoStep: on }).where(eq(accounts.id, actor.accountId));
        await recordActivity(
          tx,
          actor,
          "account.require_2fa",
          actor.accountId,
          on ? "Required two-step sign-in of every member." : "Stopped requiring two-step sign-in.",
        );
      });
    },
  };
}
