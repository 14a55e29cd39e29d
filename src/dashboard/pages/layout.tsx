/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { Form } from "../../domain/types.ts";
import { can } from "../../services/people/roles.ts";
import type { Session } from "../../services/people/users.ts";

export interface Chrome {
  title: string;
  session?: Session | null;
  /** The top-level section shown as current in the navigation. */
  section?: "forms" | "keys" | "team" | "activity" | "erase" | "account";
  children?: Child;
}

/** Every page's frame: head, header with navigation and sign-out, main. */
export function Layout({ title, session, section, children }: Chrome) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>{`${title} · formsvc`}</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        <script src="/dashboard/assets/dashboard.js" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">
          Skip to content
        </a>
        <header class="top">
          <a class="brand" href="/dashboard/forms">
            formsvc
          </a>
          {session ? (
            <nav aria-label="Main">
              <a href="/dashboard/forms" aria-current={section === "forms" ? "page" : undefined}>
                Forms
              </a>
              {can(session.user.role, "admin") ? (
                <>
                  <a href="/dashboard/keys" aria-current={section === "keys" ? "page" : undefined}>
                    API keys
                  </a>
                  <a href="/dashboard/team" aria-current={section === "team" ? "page" : undefined}>
                    Team
                  </a>
                  <a href="/dashboard/activity" aria-current={section === "activity" ? "page" : undefined}>
                    Activity
                  </a>
                  <a href="/dashboard/erase" aria-current={section === "erase" ? "page" : undefined}>
                    Erase data
                  </a>
                </>
              ) : null}
              <a href="/dashboard/account" aria-current={section === "account" ? "page" : undefined}>
                Account
              </a>
              <form method="post" action="/dashboard/signout" class="inline">
                <input type="hidden" name="_csrf" value={session.csrfToken} />
                <button type="submit" class="link">
                  Sign out
                </button>
              </form>
            </nav>
          ) : null}
        </header>
        <main id="main">{children}</main>
      </body>
    </html>
  );
}

/** The hidden CSRF field every state-changing form carries. */
export const Csrf = ({ session }: { session: Session }) => <input type="hidden" name="_csrf" value={session.csrfToken} />;

export type FormTab = "inbox" | "settings" | "deliveries";

/** A form's title and its tabs: inbox, settings, deliveries. */
export function FormHeader({ form, tab }: { form: Form; tab: FormTab }) {
  const base = `/dashboard/forms/${form.id}`;
  const tabs: [FormTab, string, string][] = [
    ["inbox", "Inbox", `${base}/submissions`],
    ["settings", "Settings", `${base}/settings`],
    ["deliveries", "Deliveries", `${base}/deliveries`],
  ];
  return (
    <div class="form-head">
      <p class="crumbs">
        <a href="/dashboard/forms">Forms</a> /
      </p>
      <h1>
        {form.name} <ModeBadge mode={form.mode} /> {form.isActive ? null : <span class="badge off">inactive</span>}
      </h1>
      <nav class="tabs" aria-label="Form">
        {tabs.map(([id, label, href]) => (
          <a href={href} aria-current={id === tab ? "page" : undefined}>
            {label}
          </a>
        ))}
      </nav>
    </div>
  );
}

export const ModeBadge = ({ mode }: { mode: string }) => <span class={`badge ${mode}`}>{mode}</span>;

/**
 * A table in a labelled region a keyboard can focus (so that a wide one can be scrolled without a mouse); the
 * label is the table's caption for screen readers. With `cards`, each row is a card on a phone.
 */
export function ScrollTable({ label, cards, children }: { label: string; cards?: boolean; children?: Child }) {
  return (
    <div class={cards ? "table-wrap cards" : "table-wrap"} tabindex={0} role="region" aria-label={label}>
      <table>
        <caption class="sr-only">{label}</caption>
        {children}
      </table>
    </div>
  );
}

/** A time as UTC text; the script shows it in the reader's own zone. */
export function Time({ iso }: { iso: string | null }) {
  if (!iso) return <span class="muted">never</span>;
  return <time datetime={iso}>{`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}</time>;
}

/** A message at the top of a page, after an action. */
export function Notice({ text, kind = "ok" }: { text?: string | null; kind?: "ok" | "error" }) {
  if (!text) return null;
  return (
    <p class={`notice ${kind}`} role={kind === "error" ? "alert" : "status"}>
      {text}
    </p>
  );
}

export interface FieldProps {
  label: string;
  name: string;
  value?: string | null;
  error?: string | null;
  hint?: string;
  type?: string;
  required?: boolean;
  autocomplete?: string;
  placeholder?: string;
  multiline?: boolean;
}

/** A labelled input with its hint and, when the service refused it, the error beside it. */
export function Field({ label, name, value, error, hint, type = "text", required, autocomplete, placeholder, multiline }: FieldProps) {
  const id = `f-${name}`;
  const described = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(" ") || undefined;
  const common = { id, name, required, placeholder, "aria-invalid": error ? "true" : undefined, "aria-describedby": described };
  return (
    <div class={`field${error ? " has-error" : ""}`}>
      <label for={id}>{label}</label>
      {multiline ? (
        <textarea {...common} rows={3}>
          {value ?? ""}
        </textarea>
      ) : (
        <input {...common} type={type} value={value ?? ""} autocomplete={autocomplete} />
      )}
      {hint ? (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      ) : null}
      {error ? (
        <p class="error" id={`${id}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A yes/no setting as a checkbox that posts "true" when ticked. */
export function Check({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <div class="field check">
      <input type="checkbox" id={`f-${name}`} name={name} value="true" checked={checked} />
      <label for={`f-${name}`}>{label}</label>
    </div>
  );
}

/** Text with a copy button (the script copies the element `target` names). */
export function CopyButton({ target, label = "Copy" }: { target: string; label?: string }) {
  return (
    <button type="button" class="secondary small" data-copy={target} hidden>
      {label}
    </button>
  );
}
