import { and, eq, gt, isNull } from "drizzle-orm";
import type { Store } from "../../db/client.ts";
import { accounts, invitations, users, type UserRow } from "../../db/schema.ts";
import { ApiError } from "../../errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { recordActivity } from "./activity.ts";
import type { Role } from "./roles.ts";
import { hashPassword, newUserRow } from "./users.ts";

/** The OpenID provider serve was given (docs/dashboard.md, "Single sign-on"); the secret is only ever sent to it. */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The provider's name on the sign-in page's button. */
  name: string;
}

/** What the browser carries between the redirect to the provider and its return: checked once, on the way back. */
export interface OidcChecks {
  state: string;
  nonce: string;
  verifier: string;
}

const SCOPES = "openid email profile";
const refused = (message: string) => new ApiError("forbidden", message);

/** Single sign-on through an OpenID provider: openid-client, loaded with the first "Sign in with …" press. */
export function ssoService(store: Store, settings: OidcSettings) {
  type Client = typeof import("openid-client");
  let configuration: Promise<{ client: Client; config: import("openid-client").Configuration }> | null = null;

  /** The provider's discovery document, read once; a failed read is tried again on the next press. */
  function discover() {
    configuration ??= (async () => {
      const client = await import("openid-client");
      const issuer = new URL(settings.issuer);
      const insecure = issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : undefined;
      const found = await client.discovery(issuer, settings.clientId, undefined, undefined, insecure);
      // The client authenticates as the discovery document allows: basic when it says nothing (the standard's default) or lists it, else post.
      const methods = found.serverMetadata().token_endpoint_auth_methods_supported;
      const auth =
        !methods || methods.includes("client_secret_basic")
          ? client.ClientSecretBasic(settings.clientSecret)
          : methods.includes("client_secret_post")
            ? client.ClientSecretPost(settings.clientSecret)
            : null;
      if (!auth) throw new Error(`the provider takes neither client_secret_basic nor client_secret_post (it lists ${methods!.join(", ")})`);
      const config = new client.Configuration(found.serverMetadata(), settings.clientId, settings.clientSecret, auth);
      if (insecure) client.allowInsecureRequests(config);
      return { client, config };
    })();
    configuration.catch(() => {
      configuration = null;
    });
    return configuration;
  }

  /** The person the provider vouched for: a member with this email, or a pending invitation, which this accepts. */
  async function memberOf(email: string): Promise<UserRow | null> {
    const [member] = await store.db.select().from(users).where(eq(users.email, email));
    if (member) return member;
    // Nobody signs in without a password of their own choosing otherwise: this one is random and never told.
    const passwordHash = await hashPassword(randomBase62(43));
    return store.write(async (tx) => {
      const now = Date.now();
      const [invitation] = await tx
        .update(invitations)
        .set({ usedAt: now })
        .where(and(eq(invitations.email, email), isNull(invitations.usedAt), gt(invitations.expiresAt, now)))
        .returning();
      if (!invitation) return null;
      const row = newUserRow(invitation.accountId, invitation.email, passwordHash, invitation.role as Role);
      row.formIds = invitation.formIds;
      await tx.insert(users).values(row);
      await recordActivity(
        tx,
        { accountId: row.accountId, actor: `user:${row.email}` },
        "user.join",
        row.id,
        `Joined as ${row.role} through ${settings.name}, invited by ${invitation.invitedBy.replace(/^user:/, "")}.`,
      );
      return row;
    });
  }

  return {
    name: settings.name,

    /** The provider's sign-in address for this browser, and the checks its return must pass (PKCE S256, state, nonce). */
    async start(redirectUri: string): Promise<{ url: string; checks: OidcChecks }> {
      const { client, config } = await discover();
      const checks = { state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: SCOPES,
        code_challenge: await client.calculatePKCECodeChallenge(checks.verifier),
        code_challenge_method: "S256",
        state: checks.state,
        nonce: checks.nonce,
      });
      return { url: url.href, checks };
    },

    /**
     * The member the provider's answer signs in: the code is exchanged (with the PKCE verifier), the state and the
     * ID token's nonce checked, and its email must be verified and a member's or a pending invitation's. Anyone
     * else is refused, and nothing is made for them; a refusal of a vouched-for email is in the activity log.
     */
    async finish(callbackUrl: URL, checks: OidcChecks): Promise<UserRow> {
      const { client, config } = await discover();
      let claims: Record<string, unknown> | undefined;
      try {
        const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: checks.verifier,
          expectedState: checks.state,
          expectedNonce: checks.nonce,
          idTokenExpected: true,
        });
        claims = tokens.claims();
        // A provider may keep the email for its userinfo endpoint (OpenID Connect Core 5.4): asked there, for the same subject.
        if (claims && typeof claims.email !== "string") {
          claims = { ...claims, ...(await client.fetchUserInfo(config, tokens.access_token, String(claims.sub))) };
        }
      } catch (error) {
        // openid-client wraps the check that failed (state, nonce, signature, …) in a general error: its cause says which.
        const cause = (error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : null;
        throw refused(`${settings.name} did not sign you in: ${cause ?? (error as Error).message}`);
      }
      const email = typeof claims?.email === "string" ? claims.email.trim().toLowerCase() : "";
      const verified = claims?.email_verified === true;
      const user = email && verified ? await memberOf(email) : null;
      if (!user) {
        const [home] = await store.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.isDefault, true));
        if (home && email) {
          const why = verified ? "no member or pending invitation has this email" : "the provider did not say the email is verified";
          await store.write((tx) =>
            recordActivity(tx, { accountId: home.id, actor: `user:${email}` }, "user.sso_refused", email, `Refused ${settings.name} sign-in: ${why}.`),
          );
        }
        throw refused(
          email && !verified
            ? `${settings.name} did not say that ${email} is verified, so it cannot sign you in here.`
            : `You have no account here${email ? ` as ${email}` : ""}. Ask an admin of this formsvc to invite you.`,
        );
      }
      await store.write((tx) =>
        recordActivity(tx, { accountId: user.accountId, actor: `user:${user.email}` }, "user.sso_signin", user.id, `Signed in through ${settings.name}.`),
      );
      return user;
    },
  };
}

export type SsoService = ReturnType<typeof ssoService>;
