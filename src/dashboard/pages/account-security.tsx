/** @jsxImportSource hono/jsx */
import type { Passkey } from "../../services/people/passkeys.ts";
import type { SessionEntry } from "../../services/people/sessions.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Layout, Notice, Time } from "./layout.tsx";
import { DataTable } from "./table.tsx";

/** What the two-step page shows: the set-up (QR code and address) while it is off, the state while it is on. */
export interface TwoStepView {
  on: boolean;
  recoveryLeft: number;
  /** While off: the secret being set up and its otpauth:// address (the QR code's, served at qr.svg). */
  setup?: { secret: string; uri: string };
  /** Just turned on: the recovery codes, shown this once. */
  codes?: string[];
}

/** Account → Two-step sign-in: set it up with an authenticator app, see the recovery codes once, or turn it off. */
export function TwoStepPage({ session, view, error, notice }: { session: Session; view: TwoStepView; error?: string; notice?: string }) {
  return (
    <Layout title="Two-step sign-in" session={session} section="account">
      <h1>Two-step sign-in</h1>
      <Notice text={notice} />
      {view.codes ? (
        <section class="card new-key" aria-labelledby="codes-title">
          <h2 id="codes-title">Two-step sign-in is on: your recovery codes</h2>
          <p>
            <strong>They are shown here only this once.</strong> Keep them somewhere safe: each one signs you in once in place of a code, if you lose your
            phone.
          </p>
          <ul id="recovery-codes" class="codes">
            {view.codes.map((code) => (
              <li>
                <code>{code}</code>
              </li>
            ))}
          </ul>
          <p>
            <a href="/dashboard/forms">Go on to the dashboard</a>
          </p>
        </section>
      ) : null}
      {view.on ? (
        <section class="card" aria-labelledby="off-title">
          <h2 id="off-title">Two-step sign-in is on</h2>
          <p>Each sign-in asks for a code from your authenticator app after the password. Recovery codes left: {view.recoveryLeft} of 10.</p>
          <form method="post" action="/dashboard/account/two-step/disable">
            <Csrf session={session} />
            <Field
              label="Current code"
              name="code"
              required
              autocomplete="one-time-code"
              hint="A code from your app (or a recovery code) proves it is you."
              error={error}
            />
            <button type="submit" class="danger">
              Turn off two-step sign-in
            </button>
          </form>
        </section>
      ) : view.setup ? (
        <section class="card" aria-labelledby="setup-title">
          <h2 id="setup-title">Set up two-step sign-in</h2>
          <ol>
            <li>In an authenticator app (Google Authenticator, Microsoft Authenticator, 1Password, Aegis, …), add an account by scanning this QR code.</li>
            <li>Enter the 6-digit code it then shows.</li>
          </ol>
          <img class="qr" src="/dashboard/account/two-step/qr.svg" alt="QR code of the otpauth address below" width="200" height="200" />
          <p>Cannot scan? Enter this key in the app:</p>
          <p class="key-line">
            <code id="totp-secret">{view.setup.secret}</code>
          </p>
          <p class="hint">Or open the address:</p>
          <p class="key-line">
            <code id="totp-uri">{view.setup.uri}</code>
          </p>
          <form method="post" action="/dashboard/account/two-step/enable">
            <Csrf session={session} />
            <Field label="Code from the app" name="code" required autocomplete="one-time-code" error={error} />
            <button type="submit">Turn on two-step sign-in</button>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

/** Account → Sessions: every signed-in browser of the user, each signed out alone or all but this one at once. */
export function SessionsPage({ session, sessions, notice }: { session: Session; sessions: SessionEntry[]; notice?: string }) {
  return (
    <Layout title="Sessions" session={session} section="account">
      <h1>Sessions</h1>
      <Notice text={notice} />
      <section class="card" aria-labelledby="sessions-title">
        <h2 id="sessions-title">Signed in</h2>
        <DataTable
          label="Sessions"
          rows={sessions}
          columns={[
            { title: "Browser", cell: (s) => (s.current ? `${s.browser} (this browser)` : s.browser) },
            { title: "IP address", cell: (s) => s.ip ?? "unknown" },
            { title: "Started", cell: (s) => <Time iso={s.startedAt} /> },
            { title: "Last used", cell: (s) => <Time iso={s.lastUsedAt} /> },
            {
              title: "Actions",
              hideTitle: true,
              cell: (s) =>
                s.current ? null : (
                  <form method="post" action={`/dashboard/account/sessions/${s.id}/end`}>
                    <Csrf session={session} />
                    <button type="submit" class="secondary small">
                      Sign out
                    </button>
                  </form>
                ),
            },
          ]}
        />
        {sessions.some((s) => !s.current) ? (
          <form method="post" action="/dashboard/account/sessions/others">
            <Csrf session={session} />
            <button type="submit" class="danger">
              Sign out every other session
            </button>
          </form>
        ) : null}
      </section>
    </Layout>
  );
}

/** Account → Passkeys: add one (named), list, rename and remove them. */
export function PasskeysPage({
  session,
  passkeys,
  notice,
  errors = {},
  baseUrl,
}: {
  session: Session;
  passkeys: Passkey[];
  notice?: string;
  errors?: Record<string, string | undefined>;
  /** The public address passkeys are bound to (--base-url). */
  baseUrl: string;
}) {
  return (
    <Layout title="Passkeys" session={session} section="account">
      <h1>Passkeys</h1>
      <Notice text={notice} />
      <Notice text={errors.form ?? errors.response} kind="error" />
      <section class="card" aria-labelledby="passkeys-title">
        <h2 id="passkeys-title">Your passkeys</h2>
        <p class="hint">
          A passkey signs you in to {baseUrl} with your device's screen lock or security key: no password, no code. It works only at that address.
        </p>
        {passkeys.length === 0 ? <p class="muted">No passkey yet.</p> : null}
        {passkeys.length > 0 ? (
          <DataTable
            label="Passkeys"
            rows={passkeys}
            columns={[
              {
                title: "Name",
                cell: (p) => (
                  <form method="post" action={`/dashboard/account/passkeys/${p.id}/rename`} class="inline">
                    <Csrf session={session} />
                    <input name="name" value={p.name} aria-label={`Name of passkey ${p.name}`} maxlength={100} required />
                    <button type="submit" class="secondary small">
                      Rename
                    </button>
                  </form>
                ),
              },
              { title: "Added", cell: (p) => <Time iso={p.createdAt} /> },
              { title: "Last used", cell: (p) => <Time iso={p.lastUsedAt} /> },
              {
                title: "Actions",
                hideTitle: true,
                cell: (p) => (
                  <form method="post" action={`/dashboard/account/passkeys/${p.id}/remove`}>
                    <Csrf session={session} />
                    <button type="submit" class="danger small" aria-label={`Remove passkey ${p.name}`}>
                      Remove
                    </button>
                  </form>
                ),
              },
            ]}
          />
        ) : null}
      </section>
      <section class="card" aria-labelledby="add-passkey-title">
        <h2 id="add-passkey-title">Add a passkey</h2>
        <noscript>
          <p>Adding a passkey needs JavaScript: the browser makes it.</p>
        </noscript>
        <form method="post" action="/dashboard/account/passkeys" data-passkey="add" data-options="/dashboard/account/passkeys/options" hidden>
          <Csrf session={session} />
          <input type="hidden" name="response" value="" />
          <Field label="Name" name="name" required hint="To tell your passkeys apart, such as “Laptop” or “Phone”." error={errors.name} />
          <button type="submit">Add a passkey</button>
          <p class="error" role="alert" data-passkey-status></p>
        </form>
      </section>
    </Layout>
  );
}
