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

export type UserRow = typeof users.$inferSelect;
export type InvitationRow = typeof invitations.$inferSelect;
export type ActivityRow = typeof activity.$inferSelect;
