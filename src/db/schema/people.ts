// The dashboard's people: users, invitations, sessions and one-time links, and the account's activity log.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts, millis } from "./tables.ts";

/** People who sign in to the dashboard: an email and an argon2id password hash, in one account. */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** Lowercased and trimmed, unique across the server: it is what a person signs in with. */
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    createdAt: millis("created_at"),
    passwordChangedAt: millis("password_changed_at"),
    /** owner | admin | editor | viewer (docs/dashboard.md, "Team and roles"); users made before roles are owners. */
    role: text("role").notNull().default("owner"),
    /** JSON array of the form ids the user is limited to; null: every form of the account. */
    formIds: text("form_ids"),
    /** The base32 TOTP secret once two-step sign-in is on (docs/dashboard.md, "Two-step sign-in"); never shown again. */
    totpSecret: text("totp_secret"),
    /** The secret being set up, until a correct code turns it on. */
    totpPending: text("totp_pending"),
    /** The 30-second step of the last code accepted: a code of that step or an earlier one is refused. */
    totpLastStep: integer("totp_last_step"),
  },
  (t) => [uniqueIndex("users_email").on(t.email)],
);

/** One-time invitations to join an account with a role: the token's SHA-256, valid INVITATION_DAYS (domain/limits.ts), used at most once. */
export const invitations = sqliteTable(
  "invitations",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").notNull(),
    formIds: text("form_ids"),
    /** The actor who invited (`user:<email>` or `cli`). */
    invitedBy: text("invited_by").notNull(),
    createdAt: millis("created_at"),
    expiresAt: millis("expires_at"),
    usedAt: integer("used_at"),
  },
  (t) => [index("invitations_account").on(t.accountId, t.createdAt)],
);

/** The account's activity log: who did what to which form, key, webhook, user or setting (docs/dashboard.md, "Team and roles"). */
export const activity = sqliteTable(
  "activity",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    at: millis("at"),
    /** `user:<email>`, `key:<prefix>` or `cli`. */
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    target: text("target").notNull(),
    /** A short sentence of what changed; never a secret. */
    summary: text("summary").notNull(),
  },
  (t) => [index("activity_account").on(t.accountId, t.id), index("activity_at").on(t.at)],
);

/** Dashboard sessions: the cookie holds a random token, the row only its SHA-256. */
export const sessions = sqliteTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The per-session token every state-changing form of the dashboard carries. */
    csrfToken: text("csrf_token").notNull(),
    /** Opened by a one-time sign-in link (recovery): the password may be set without the current one. */
    viaLink: integer("via_link", { mode: "boolean" }).notNull().default(false),
    createdAt: millis("created_at"),
    /** Refreshed as the session is used (at most once a minute); the session ends 14 days after it. */
    lastSeenAt: millis("last_seen_at"),
    /** The browser's User-Agent and the client address when the session was opened, for the Sessions list. */
    userAgent: text("user_agent"),
    ip: text("ip"),
  },
  (t) => [index("sessions_user").on(t.userId)],
);

/** One-time links of the dashboard (setup of the first user, sign-in): the token's SHA-256, used at most once. */
export const signinLinks = sqliteTable("signin_links", {
  tokenHash: text("token_hash").primaryKey(),
  /** setup (creates the first user) | signin (signs in userId) */
  kind: text("kind").notNull(),
  userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
  createdAt: millis("created_at"),
  expiresAt: millis("expires_at"),
  usedAt: integer("used_at"),
});

/** A user's recovery codes for two-step sign-in: their SHA-256 only, each used once. */
export const recoveryCodes = sqliteTable(
  "recovery_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    usedAt: integer("used_at"),
  },
  (t) => [index("recovery_codes_user").on(t.userId)],
);

/** A user's passkeys (WebAuthn credentials): the public key and the last signature counter seen. */
export const passkeys = sqliteTable(
  "passkeys",
  {
    /** The credential id, base64url. */
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    counter: integer("counter").notNull(),
    /** JSON array of the authenticator's transports, as the browser reported them. */
    transports: text("transports"),
    createdAt: millis("created_at"),
    lastUsedAt: integer("last_used_at"),
  },
  (t) => [index("passkeys_user").on(t.userId)],
);

export type UserRow = typeof users.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type ActivityRow = typeof activity.$inferSelect;
