// Google Sheets: a service account's signed JWT exchanged for an access token at the key's own token_uri
// (RFC 7523, as Google's "Using OAuth 2.0 for server to server applications" says), kept until it expires.
// The row it lets the sender append is destination-types/google-sheets.ts's.
// node:crypto signs the JWT: one RS256 signature did not warrant google-auth-library or jose in the binary.
import { createHash, sign } from "node:crypto";
import type { AttemptResult, SendContext } from "../destination-types/kind.ts";
import { outcome, vendorMessage } from "./common.ts";

/** The fields of a Google service account's key file that formsvc uses. */
export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

/** What the token lets formsvc do: edit spreadsheets the service account was given, nothing else. */
export const SHEETS_SCOPE = "https://www.googleapis.com/auth/spreadsheets";
/** How long a signed assertion is valid: Google takes at most an hour. */
const ASSERTION_SECONDS = 3600;
/** A token is used until this long before it expires, so that none expires on the way. */
const TOKEN_MARGIN_MS = 60_000;

const base64url = (input: string | Buffer) => Buffer.from(input).toString("base64url");

/** The signed JWT a service account presents for a token (RS256, its key id in the header). */
export function serviceAccountAssertion(key: ServiceAccountKey, nowSeconds: number): string {
  const header = base64url(JSON.stringify({ alg: "RS256", typ: "JWT", ...(key.private_key_id ? { kid: key.private_key_id } : {}) }));
  const claims = base64url(
    JSON.stringify({ iss: key.client_email, scope: SHEETS_SCOPE, aud: key.token_uri, iat: nowSeconds, exp: nowSeconds + ASSERTION_SECONDS }),
  );
  const signature = sign("RSA-SHA256", Buffer.from(`${header}.${claims}`), key.private_key);
  return `${header}.${claims}.${base64url(signature)}`;
}

/**
 * What a cached token is kept under: the whole key that obtained it, private key included. The email and key id
 * are public (anyone may name them in a destination of their own), so a token found by them alone would serve
 * another account's key with this one's token; only a destination holding the same private key may reuse it.
 */
const tokenCacheKey = (key: ServiceAccountKey) =>
  createHash("sha256")
    .update(JSON.stringify([key.token_uri, key.client_email, key.private_key_id ?? "", key.private_key]))
    .digest("base64url");

/** Forgets the key's cached token (Google refused it): the next attempt asks for a new one; other keys' stay. */
export function forgetToken(context: SendContext<unknown>, key: ServiceAccountKey): void {
  context.tokens.delete(tokenCacheKey(key));
}

/** An access token for the key (RFC 7523): the cached one while it lasts, else a new one from its token_uri. */
export async function accessToken(context: SendContext<unknown>, key: ServiceAccountKey): Promise<{ token: string } | { failed: AttemptResult }> {
  const cacheKey = tokenCacheKey(key);
  const cached = context.tokens.get(cacheKey);
  if (cached && cached.until > Date.now()) return { token: cached.token };
  let assertion: string;
  try {
    assertion = serviceAccountAssertion(key, Math.floor(Date.now() / 1000));
  } catch {
    return {
      failed: {
        ok: false,
        responseStatus: null,
        durationMs: 0,
        responseSnippet: null,
        error: "Sheets: the service account's private_key cannot sign (is it the key file's own?).",
        final: true,
      },
    };
  }
  const body = new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString();
  const answer = await context.call(key.token_uri, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", "user-agent": context.userAgent },
    body,
  });
  if (answer.ok) {
    try {
      const granted = JSON.parse(answer.text) as { access_token?: unknown; expires_in?: unknown };
      if (typeof granted.access_token === "string") {
        const seconds = typeof granted.expires_in === "number" ? granted.expires_in : 3600;
        context.tokens.set(cacheKey, { token: granted.access_token, until: Date.now() + seconds * 1000 - TOKEN_MARGIN_MS });
        return { token: granted.access_token };
      }
    } catch {}
    return { failed: { ...outcome(answer, () => null), ok: false, error: "Sheets: the token address answered without an access_token." } };
  }
  return {
    failed: outcome(answer, (status) => {
      const reason = vendorMessage(answer) ?? `${status}`;
      return status === 400 || status === 401
        ? `Sheets: Google refused the service account's key (${status}: ${reason}); make a new key for ${key.client_email}.`
        : `Sheets: the token address answered ${status}.`;
    }),
  };
}
