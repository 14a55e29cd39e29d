/** @jsxImportSource hono/jsx */
import { selfCommand } from "../../lib/self-command.ts";
import type { BackupStatus } from "../../workers/backups.ts";
import { buildInfo, type UpdateCheck } from "../../lib/release.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Layout, Notice } from "./layout.tsx";

type Errors = Record<string, string | undefined>;

/** The ways this server signs in besides passkeys: single sign-on's button (the provider's name), and whether passwords do. */
export interface SignInWays {
  sso?: string;
  passwordSignin?: boolean;
}

/** Sign in with email and password, single sign-on or a passkey. */
export function SignInPage({
  presession,
  email,
  error,
  next,
  notice,
  noUser = false,
  sso,
  passwordSignin = true,
}: {
  presession: string;
  email?: string;
  error?: string;
  next?: string;
  notice?: string;
  /** No user exists yet: the page says how to make the first one. */
  noUser?: boolean;
} & SignInWays) {
  return (
    <Layout title="Sign in">
      <section class="card narrow">
        <h1>Sign in</h1>
        {noUser ? (
          <div class="callout" role="note" id="setup-hint">
            <p>
              <strong>No user yet.</strong> The first one is made with the one-time setup link that <code>formsvc serve</code> printed when it started (valid
              for an hour).
            </p>
            <p>
              Lost it? On the server, run <code>{`${selfCommand()} dashboard link`}</code> for a new one.
            </p>
          </div>
        ) : null}
        <Notice text={notice} />
        <Notice text={error} kind="error" />
        {passwordSignin ? (
          <form method="post" action="/dashboard/signin">
            <input type="hidden" name="_presession" value={presession} />
            {next ? <input type="hidden" name="next" value={next} /> : null}
            <Field label="Email" name="email" type="email" value={email} required autocomplete="username" />
            <Field label="Password" name="password" type="password" required autocomplete="current-password" />
            <button type="submit">Sign in</button>
          </form>
        ) : null}
        {sso ? (
          <p>
            <a class="button" href={`/dashboard/oidc/start${next ? `?next=${encodeURIComponent(next)}` : ""}`}>
              Sign in with {sso}
            </a>
          </p>
        ) : null}
        <PasskeySignIn presession={presession} next={next} />
        {passwordSignin ? (
          <p class="hint">
            Forgot your password? On the server, run <code>{`${selfCommand()} dashboard link --email you@example.com`}</code> for a one-time sign-in link.
          </p>
        ) : null}
      </section>
    </Layout>
  );
}

/** "Sign in with a passkey": no email typed, the browser offers the passkeys it holds for this server (shown only with WebAuthn). */
function PasskeySignIn({ presession, next }: { presession: string; next?: string }) {
  return (
    <form method="post" action="/dashboard/signin/passkey" data-passkey="signin" data-options="/dashboard/signin/passkey/options" hidden>
      <input type="hidden" name="_presession" value={presession} />
      {next ? <input type="hidden" name="next" value={next} /> : null}
      <input type="hidden" name="response" value="" />
      <button type="submit" class="secondary">
        Sign in with a passkey
      </button>
      <p class="error" role="alert" data-passkey-status></p>
    </form>
  );
}

/** The second step of a sign-in with two-step on: a code from the app, or a recovery code. */
export function CodePage({ presession, error, next }: { presession: string; error?: string; next?: string }) {
  return (
    <Layout title="Two-step sign-in">
      <section class="card narrow">
        <h1>Two-step sign-in</h1>
        <p>Enter the 6-digit code your authenticator app shows for formsvc.</p>
        <Notice text={error} kind="error" />
        <form method="post" action="/dashboard/signin/code">
          <input type="hidden" name="_presession" value={presession} />
          {next ? <input type="hidden" name="next" value={next} /> : null}
          <Field
            label="Code"
            name="code"
            required
            autocomplete="one-time-code"
            hint="Lost your phone? Enter one of your recovery codes instead (each works once)."
          />
          <button type="submit">Verify</button>
        </form>
      </section>
    </Layout>
  );
}

/** The first user's setup, reached by the link `formsvc serve` prints. */
export function SetupPage({ presession, token, email, errors = {} }: { presession: string; token: string; email?: string; errors?: Errors }) {
  return (
    <Layout title="Create the first user">
      <section class="card narrow">
        <h1>Welcome to formsvc</h1>
        <p>Create the account you will sign in to the dashboard with.</p>
        <Notice text={errors.form} kind="error" />
        <form method="post" action="/dashboard/setup">
          <input type="hidden" name="_presession" value={presession} />
          <input type="hidden" name="token" value={token} />
          <Field label="Email" name="email" type="email" value={email} required autocomplete="username" error={errors.email} />
          <Field label="Password" name="password" type="password" required autocomplete="new-password" hint="At least 8 characters." error={errors.password} />
          <Field label="Password again" name="confirm" type="password" required autocomplete="new-password" error={errors.confirm} />
          <button type="submit">Create user and sign in</button>
        </form>
      </section>
    </Layout>
  );
}

/** A page that only says something (a used link, a refused request), with the way on. */
export function MessagePage({
  title,
  message,
  session,
  link = { href: "/dashboard/signin", text: "Go to sign-in" },
}: {
  title: string;
  message: string;
  session?: Session | null;
  link?: { href: string; text: string };
}) {
  return (
    <Layout title={title} session={session}>
      <section class="card narrow">
        <h1>{title}</h1>
        <p>{message}</p>
        <p>
          <a href={link.href}>{link.text}</a>
        </p>
      </section>
    </Layout>
  );
}

/** The Account page's update check: the release address's answer, or why there is none. */
export type UpdateAnswer = { check: UpdateCheck; error?: undefined } | { check?: undefined; error: string };

/** The running version, and (with --update-check) a button that asks the release address for a newer one. */
function VersionCard({ enabled, update }: { enabled: boolean; update?: UpdateAnswer }) {
  const info = buildInfo();
  const check = update?.check;
  return (
    <section class="card" id="version">
      <h2>Version</h2>
      <p>
        formsvc {info.version === "dev" ? "development build" : info.version} ({info.os}-{info.arch})
      </p>
      {check ? (
        <p>
          {check.newer
            ? `formsvc ${check.available} is available (this server runs ${check.current}). On the server: sudo formsvc update --yes --restart`
            : `Up to date: ${check.available} is the newest release at ${check.from}.`}
        </p>
      ) : null}
      {update?.error ? <p class="error">{update.error}</p> : null}
      {enabled ? (
        <form method="get" action="/dashboard/account#version">
          <input type="hidden" name="check" value="update" />
          <button type="submit">Check for a newer version</button>
        </form>
      ) : (
        <p class="muted">This server does not ask for newer versions (serve --update-check turns on a button here). On the server: formsvc update --check</p>
      )}
    </section>
  );
}

/** The server's backup schedule and its last result. */
function BackupCard({ backup }: { backup: BackupStatus }) {
  return (
    <section class="card">
      <h2>Backups</h2>
      <p>
        Every {backup.everyMs % 3_600_000 === 0 ? `${backup.everyMs / 3_600_000} hours` : `${Math.round(backup.everyMs / 60_000)} minutes`} to {backup.dir}
        {backup.s3 ? ` and ${backup.s3}` : ""}, the last {backup.keep} kept.
      </p>
      <p>Last backup: {backup.lastSuccessAt === null ? "none yet" : `${new Date(backup.lastSuccessAt).toISOString()}, ${backup.lastFile}`}</p>
      {backup.lastError ? <p class="error">The last attempt failed: {backup.lastError}</p> : null}
    </section>
  );
}

/** The signed-in user: the server's backups and version, and a change of password (which signs out every other session). */
export function AccountPage({
  session,
  errors = {},
  notice,
  backup = null,
  update,
  updateCheck = false,
}: {
  session: Session;
  errors?: Errors;
  notice?: string;
  backup?: BackupStatus | null;
  /** The answer of a check the user asked for. */
  update?: UpdateAnswer;
  /** Whether the server may ask the release address (--update-check). */
  updateCheck?: boolean;
}) {
  return (
    <Layout title="Account" session={session} section="account">
      <h1>Account</h1>
      <Notice text={notice} />
      <section class="card">
        <h2>Signed in as {session.user.email}</h2>
        <p class="muted">Sessions end after 14 days without use, on sign-out, and when the password changes.</p>
        <ul>
          <li>
            <a href="/dashboard/account/two-step">Two-step sign-in</a>
          </li>
          <li>
            <a href="/dashboard/account/passkeys">Passkeys</a>
          </li>
          <li>
            <a href="/dashboard/account/sessions">Sessions</a>
          </li>
        </ul>
      </section>
      {backup ? <BackupCard backup={backup} /> : null}
      <VersionCard enabled={updateCheck} update={update} />
      <section class="card">
        <h2>Change password</h2>
        <form method="post" action="/dashboard/account/password">
          <Csrf session={session} />
          {session.viaLink ? (
            <p class="hint">You signed in with a one-time link: set a new password without the current one.</p>
          ) : (
            <Field label="Current password" name="current" type="password" required autocomplete="current-password" error={errors.current} />
          )}
          <Field
            label="New password"
            name="password"
            type="password"
            required
            autocomplete="new-password"
            hint="At least 8 characters. Every other session is signed out."
            error={errors.password}
          />
          <Field label="New password again" name="confirm" type="password" required autocomplete="new-password" error={errors.confirm} />
          <button type="submit">Change password</button>
        </form>
      </section>
    </Layout>
  );
}
