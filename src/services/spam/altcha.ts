import { sql } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { altchaUsed, settings } from "../../db/schema.ts";
import { DEFAULT_COMPLEXITY } from "../../domain/limits.ts";
import { randomBase62 } from "../../lib/random.ts";

/** The widget's default algorithm (bundled in its script), and the work of one try at it. */
const ALGORITHM = "PBKDF2/SHA-256";
const COST = 500;
/** How long a challenge may be solved and its solution posted. */
export const ALTCHA_LIFETIME_MS = 20 * 60_000;
/** The longest `altcha` field taken: a widget's payload is well under 2 KB. */
const MAX_PAYLOAD = 4096;
const KEY_SETTING = "altcha_hmac_key";

/** What a form's captcha needs here: which form a challenge is for, and how hard. */
export interface AltchaForm {
  slug: string;
  captchaComplexity: number | null;
}

// altcha-lib (and WebCrypto under it) loads with the first challenge or solution, not with every start.
const lib = () => Promise.all([import("altcha-lib"), import("altcha-lib/algorithms/web/pbkdf2")]);

interface Payload {
  challenge: { parameters: { data?: Record<string, unknown>; expiresAt?: number; algorithm?: string }; signature?: string };
  solution: { counter: number; derivedKey: string };
}

/** The widget's payload (base64 of JSON), or null when it is not one. */
function parsePayload(token: unknown): Payload | null {
  if (typeof token !== "string" || token.length === 0 || token.length > MAX_PAYLOAD) return null;
  try {
    const payload = JSON.parse(atob(token)) as Payload;
    if (typeof payload?.challenge?.parameters !== "object" || typeof payload.challenge.signature !== "string") return null;
    if (typeof payload.solution !== "object" || payload.solution === null) return null;
    return payload;
  } catch {
    return null;
  }
}

/**
 * ALTCHA, served by formsvc itself: challenges signed with a key kept in the database (made once), and
 * solutions checked against them, each accepted once until its challenge expires.
 */
export function altchaService(store: Store) {
  let secrets: Promise<{ signature: string; keySignature: string }> | undefined;

  /** The HMAC key, made by the first server that needs it (INSERT OR IGNORE: two at once agree on one). */
  async function loadSecrets() {
    await store.write(async (tx) => {
      await tx
        .insert(settings)
        .values({ key: KEY_SETTING, value: randomBase62(48) })
        .onConflictDoNothing();
    });
    const rows = (await store.db.all(sql`SELECT value FROM ${settings} WHERE key = ${KEY_SETTING}`)) as { value: string }[];
    const key = rows[0]?.value;
    if (!key) throw new Error("the ALTCHA key could not be read back");
    // Two secrets from one key: one signs the challenge, the other the key that solves it.
    return { signature: key, keySignature: new Bun.CryptoHasher("sha256", key).update("altcha-key-signature").digest("hex") };
  }
  const keys = () => {
    secrets ??= loadSecrets().catch((error) => {
      secrets = undefined;
      throw error;
    });
    return secrets;
  };

  return {
    /** A new challenge for the form, in the format the `altcha` widget solves by default. */
    async challenge(form: AltchaForm) {
      const [[{ createChallenge, randomInt }, { deriveKey }], secret] = await Promise.all([lib(), keys()]);
      return createChallenge({
        algorithm: ALGORITHM,
        cost: COST,
        counter: randomInt(form.captchaComplexity ?? DEFAULT_COMPLEXITY),
        deriveKey,
        data: { form: form.slug },
        expiresAt: new Date(Date.now() + ALTCHA_LIFETIME_MS),
        hmacSignatureSecret: secret.signature,
        hmacKeySignatureSecret: secret.keySignature,
      });
    },

    /**
     * Whether the `altcha` field is a solution of a challenge made for this form, unexpired and never accepted
     * before. An accepted one is recorded (and the expired records swept) at once, so it cannot be used twice.
     */
    async verify(form: AltchaForm, token: unknown): Promise<boolean> {
      const payload = parsePayload(token);
      if (!payload || payload.challenge.parameters.data?.form !== form.slug) return false;
      const [[{ verifySolution }, { deriveKey }], secret] = await Promise.all([lib(), keys()]);
      let verified = false;
      try {
        const result = await verifySolution({
          challenge: payload.challenge as Parameters<typeof verifySolution>[0]["challenge"],
          solution: payload.solution,
          deriveKey,
          hmacSignatureSecret: secret.signature,
          hmacKeySignatureSecret: secret.keySignature,
        });
        verified = result.verified;
      } catch {
        return false;
      }
      if (!verified) return false;
      const now = Date.now();
      const expiresAt = (payload.challenge.parameters.expiresAt ?? 0) * 1000 || now + ALTCHA_LIFETIME_MS;
      const [, inserted] = (await store.batch((db) => [
        db.run(sql`DELETE FROM ${altchaUsed} WHERE expires_at < ${now}`),
        db.all(sql`INSERT INTO ${altchaUsed} (signature, expires_at) VALUES (${payload.challenge.signature}, ${expiresAt})
          ON CONFLICT (signature) DO NOTHING RETURNING signature`),
      ])) as [unknown, unknown[]];
      return inserted.length === 1;
    },
  };
}
