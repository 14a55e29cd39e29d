import { and, asc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { passkeys, signinLinks, users, type UserRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { iso } from "../../lib/time.ts";
import { recordActivity } from "./activity.ts";

/** A passkey as Account → Passkeys lists it: never its key. */
export interface Passkey {
  id: string;
  name: string;
  createdAt: string;
  lastUsedAt: string | null;
}

/** Where passkeys are made and used: the relying party id is --base-url's host, the origin its origin (docs/dashboard.md, "Passkeys"). */
export interface RelyingParty {
  id: string;
  origin: string;
}

/** How long a browser has to answer a challenge (the browser's own prompt times out sooner). */
const CHALLENGE_MS = 5 * 60 * 1000;
const MAX_NAME = 100;
type ChallengeKind = "passkey-add" | "passkey-signin";

const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");
const refused = (message: string) => new ApiError("unauthorized", message);

/** A passkey's name as the user typed it: trimmed, 1 to 100 characters. */
function passkeyName(value: string): string {
  const name = value.trim();
  if (name.length < 1 || name.length > MAX_NAME)
    throw new ApiError("invalid_parameter", `Give the passkey a name of 1 to ${MAX_NAME} characters.`, { field: "name" });
  return name;
}

/** The browser's answer, as the page posts it (JSON); anything else is a malformed request. */
function parsed<T>(json: string): T {
  try {
    const value = JSON.parse(json) as unknown;
    if (value && typeof value === "object" && typeof (value as { id?: unknown }).id === "string") return value as T;
  } catch {
    // Answered below.
  }
  throw new ApiError("invalid_parameter", "The browser's passkey answer is malformed. Try again.", { field: "response" });
}

/** Passkeys (WebAuthn): made and used through @simplewebauthn/server, which loads with the first passkey page. */
export function passkeysService(store: Store) {
  const webauthn = () => import("@simplewebauthn/server");

  /** Stores a challenge for one answer; only its hash is kept. */
  async function keepChallenge(kind: ChallengeKind, challenge: string, userId: string | null): Promise<void> {
    const now = Date.now();
    await store.write(async (tx) => {
      await tx.insert(signinLinks).values({ tokenHash: sha256(challenge), kind, userId, createdAt: now, expiresAt: now + CHALLENGE_MS, usedAt: null });
      await tx.delete(signinLinks).where(lt(signinLinks.expiresAt, now));
    });
  }

  /** Uses up a challenge this server made, once: a replayed answer carries a used one and is refused. */
  async function takeChallenge(kind: ChallengeKind, challenge: string, userId: string | null): Promise<boolean> {
    const now = Date.now();
    const taken = await store.write((tx) =>
      tx
        .update(signinLinks)
        .set({ usedAt: now })
        .where(
          and(
            eq(signinLinks.tokenHash, sha256(challenge)),
            eq(signinLinks.kind, kind),
            userId === null ? isNull(signinLinks.userId) : eq(signinLinks.userId, userId),
            isNull(signinLinks.usedAt),
            gt(signinLinks.expiresAt, now),
          ),
        )
        .returning({ kind: signinLinks.kind }),
    );
    return taken.length === 1;
  }

  return {
    /** The user's passkeys, oldest first. */
    async list(userId: string): Promise<Passkey[]> {
      const rows = await store.db.select().from(passkeys).where(eq(passkeys.userId, userId)).orderBy(asc(passkeys.createdAt));
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        createdAt: iso(row.createdAt),
        lastUsedAt: row.lastUsedAt === null ? null : iso(row.lastUsedAt),
      }));
    },

    /** The browser's options to make a discoverable passkey for the user (user verification preferred). */
    async addOptions(rp: RelyingParty, user: { id: string; email: string }): Promise<unknown> {
      const { generateRegistrationOptions } = await webauthn();
      const existing = await store.db.select({ id: passkeys.id }).from(passkeys).where(eq(passkeys.userId, user.id));
      const options = await generateRegistrationOptions({
        rpName: "formsvc",
        rpID: rp.id,
        userName: user.email,
        userID: new TextEncoder().encode(user.id),
        attestationType: "none",
        excludeCredentials: existing.map((p) => ({ id: p.id })),
        authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
      });
      await keepChallenge("passkey-add", options.challenge, user.id);
      return options;
    },

    /** Checks the browser's new credential against the challenge given to this user, and keeps it under `name`. */
    async add(rp: RelyingParty, actor: { accountId: string; actor: string }, userId: string, nameInput: string, responseJson: string): Promise<Passkey> {
      const name = passkeyName(nameInput);
      const { verifyRegistrationResponse } = await webauthn();
      const { isoBase64URL } = await import("@simplewebauthn/server/helpers");
      const response = parsed<Parameters<typeof verifyRegistrationResponse>[0]["response"]>(responseJson);
      let result: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
      try {
        result = await verifyRegistrationResponse({
          response,
          expectedChallenge: (challenge) => takeChallenge("passkey-add", challenge, userId),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          requireUserVerification: false,
        });
      } catch (error) {
        throw new ApiError("invalid_parameter", `The passkey was not added: ${(error as Error).message}`, { field: "response" });
      }
      if (!result.verified)
        throw new ApiError("invalid_parameter", "The passkey was not added: the browser's answer did not check out.", { field: "response" });
      const { credential } = result.registrationInfo;
      const now = Date.now();
      await store.write(async (tx) => {
        await tx.insert(passkeys).values({
          id: credential.id,
          userId,
          name,
          publicKey: isoBase64URL.fromBuffer(credential.publicKey),
          counter: credential.counter,
          transports: credential.transports ? JSON.stringify(credential.transports) : null,
          createdAt: now,
          lastUsedAt: null,
        });
        await recordActivity(tx, actor, "user.passkey_add", userId, `Added the passkey "${name}".`);
      });
      return { id: credential.id, name, createdAt: iso(now), lastUsedAt: null };
    },

    /** Renames one of the user's passkeys. */
    async rename(userId: string, id: string, nameInput: string): Promise<void> {
      const name = passkeyName(nameInput);
      const done = await store.write((tx) =>
        tx
          .update(passkeys)
          .set({ name })
          .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
          .returning({ id: passkeys.id }),
      );
      if (done.length === 0) throw new ApiError("not_found", "No such passkey.");
    },

    /** Removes one of the user's passkeys: it no longer signs in. */
    async remove(actor: { accountId: string; actor: string }, userId: string, id: string): Promise<void> {
      await store.write(async (tx) => {
        const [gone] = await tx
          .delete(passkeys)
          .where(and(eq(passkeys.id, id), eq(passkeys.userId, userId)))
          .returning();
        if (!gone) throw new ApiError("not_found", "No such passkey.");
        await recordActivity(tx, actor, "user.passkey_remove", userId, `Removed the passkey "${gone.name}".`);
      });
    },

    /** The browser's options for "Sign in with a passkey": no email, so no credentials named (a discoverable one answers). */
    async signInOptions(rp: RelyingParty): Promise<unknown> {
      const { generateAuthenticationOptions } = await webauthn();
      const options = await generateAuthenticationOptions({ rpID: rp.id, userVerification: "preferred", allowCredentials: [] });
      await keepChallenge("passkey-signin", options.challenge, null);
      return options;
    },

    /**
     * The user a passkey's answer signs in. Refused: an unknown passkey, a challenge not made here or already used
     * (a replay), another origin or relying party, a bad signature, or a signature counter that goes backwards.
     */
    async signIn(rp: RelyingParty, responseJson: string): Promise<UserRow> {
      const { verifyAuthenticationResponse } = await webauthn();
      const { isoBase64URL } = await import("@simplewebauthn/server/helpers");
      const response = parsed<Parameters<typeof verifyAuthenticationResponse>[0]["response"]>(responseJson);
      const [found] = await store.db
        .select({ passkey: passkeys, user: users })
        .from(passkeys)
        .innerJoin(users, eq(users.id, passkeys.userId))
        .where(eq(passkeys.id, response.id));
      if (!found) throw refused("This passkey is not known here: it may have been removed. Sign in another way and add it again.");
      const { passkey, user } = found;
      let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
      try {
        result = await verifyAuthenticationResponse({
          response,
          expectedChallenge: (challenge) => takeChallenge("passkey-signin", challenge, null),
          expectedOrigin: rp.origin,
          expectedRPID: rp.id,
          credential: {
            id: passkey.id,
            publicKey: isoBase64URL.toBuffer(passkey.publicKey),
            counter: passkey.counter,
            transports: passkey.transports ? JSON.parse(passkey.transports) : undefined,
          },
          requireUserVerification: false,
        });
      } catch (error) {
        throw refused(`The passkey sign-in was refused: ${(error as Error).message}`);
      }
      if (!result.verified) throw refused("The passkey sign-in was refused: its signature did not check out.");
      // The counter moves only forwards (the library refused one that went back); of two uses of one answer only one reaches here.
      await store.write((tx) =>
        tx.update(passkeys).set({ counter: result.authenticationInfo.newCounter, lastUsedAt: Date.now() }).where(eq(passkeys.id, passkey.id)),
      );
      return user;
    },
  };
}
