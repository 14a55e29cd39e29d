/** @jsxImportSource hono/jsx */
import { CAPTCHA_PROVIDERS, DEFAULT_SPAM_RETENTION_DAYS, type Form } from "../../domain/types.ts";
import { RETENTION_DAYS } from "../../lib/validate.ts";
import type { Session } from "../../services/people/users.ts";
import { MailOff } from "./mail.tsx";
import { Csrf, Field, Notice } from "./layout.tsx";
import { Facts, type SettingsSection } from "./settings.tsx";

type Errors = Record<string, string | undefined>;

/** What the settings sections need beside the form: the server's limits and mail, and the section at fault. */
export interface SectionContext {
  session: Session;
  form: Form;
  errors: Errors;
  /** The largest file and post the server takes, in bytes (--max-file-size, --max-body). */
  limits: { maxFileSize: number; maxBody: number };
  /** The mail server in use (no password), or null when mail is off. */
  mailServer: string | null;
}

const MB = (bytes: number) => `${Math.round((bytes / 1048576) * 10) / 10} MB`;
const action = (form: Form, section: string) => `/dashboard/forms/${form.id}/settings/${section}`;

/** A yes/no setting as a checkbox that posts "true" when ticked. */
function Check({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <div class="field check">
      <input type="checkbox" id={`f-${name}`} name={name} value="true" checked={checked} />
      <label for={`f-${name}`}>{label}</label>
    </div>
  );
}

/** Files: whether the form takes uploads, and the limits the server holds them to. */
export function filesSection({ session, form, errors, limits }: SectionContext): SettingsSection {
  return {
    id: "files",
    title: "Files",
    body: (
      <form method="post" action={action(form, "files")} class="grid">
        <Csrf session={session} />
        <Notice text={errors.fileUploads} kind="error" />
        <Check name="fileUploads" label="Accept file uploads (multipart forms with file inputs)" checked={form.fileUploads} />
        <p class="hint">
          {`Up to 10 files a submission, each up to ${MB(limits.maxFileSize)}, the whole post up to ${MB(limits.maxBody)} (the server's --max-file-size and --max-body). Files are kept with their submission and only signed-in users can download them.`}
        </p>
        <div class="actions">
          <button type="submit">Save files</button>
        </div>
      </form>
    ),
    view: <Facts facts={[["File uploads", form.fileUploads ? "accepted" : "not accepted"]]} />,
  };
}

/** Retention: how long submissions and spam are kept before the hourly purge deletes them. */
export function retentionSection({ session, form, errors }: SectionContext): SettingsSection {
  return {
    id: "retention",
    title: "Retention",
    body: (
      <form method="post" action={action(form, "retention")} class="grid">
        <Csrf session={session} />
        <Field
          label="Keep submissions for (days)"
          name="retentionDays"
          type="number"
          value={form.retentionDays === null ? "" : String(form.retentionDays)}
          hint={`${RETENTION_DAYS.min} to ${RETENTION_DAYS.max}. Empty: keep them for ever.`}
          error={errors.retentionDays}
        />
        <Field
          label="Keep spam for (days)"
          name="spamRetentionDays"
          type="number"
          value={form.spamRetentionDays === null ? "" : String(form.spamRetentionDays)}
          hint={`${RETENTION_DAYS.min} to ${RETENTION_DAYS.max} (${DEFAULT_SPAM_RETENTION_DAYS} by default). Empty: keep spam for ever.`}
          error={errors.spamRetentionDays}
        />
        <div class="actions">
          <button type="submit">Save retention</button>
        </div>
      </form>
    ),
    view: (
      <Facts
        facts={[
          ["Submissions kept", form.retentionDays === null ? "for ever" : `${form.retentionDays} days`],
          ["Spam kept", form.spamRetentionDays === null ? "for ever" : `${form.spamRetentionDays} days`],
        ]}
      />
    ),
  };
}

/** Captcha: one of the providers whose token is checked before a submission is stored; the secret is write-only. */
export function captchaSection({ session, form, errors }: SectionContext): SettingsSection {
  const current = form.captcha?.provider ?? "";
  return {
    id: "captcha",
    title: "Captcha of a third party",
    body: (
      <form method="post" action={action(form, "captcha")} class="grid">
        <Csrf session={session} />
        <Notice text={errors.captcha} kind="error" />
        {current === "altcha" ? <p class="hint">The form uses the ALTCHA captcha (under Spam); choosing a provider here replaces it.</p> : null}
        <div class="field">
          <label for="f-provider">Captcha provider</label>
          <select id="f-provider" name="provider">
            <option value="" selected={current === ""}>
              none (the honeypot field only)
            </option>
            {CAPTCHA_PROVIDERS.map((p) => (
              <option value={p} selected={current === p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <Field
          label="Secret key"
          name="secret"
          type="password"
          autocomplete="off"
          hint={current ? "Kept as it is when left empty; never shown again once saved." : "The provider's secret key; never shown again once saved."}
          error={errors["captcha.secret"] ?? errors.secret}
        />
        <Field
          label="Site key"
          name="siteKey"
          value={form.captcha && "siteKey" in form.captcha ? (form.captcha.siteKey ?? "") : ""}
          hint="The provider's public site key: the form's own page shows the provider's widget with it."
          error={errors["captcha.siteKey"]}
        />
        <div class="actions">
          <button type="submit">Save captcha</button>
        </div>
      </form>
    ),
    view: <Facts facts={[["Captcha provider", current || "none (the honeypot field only)"]]} />,
  };
}

/** Notifications: where each submission is mailed, and whether this server can send mail at all. */
export function notificationsSection({ form, mailServer }: SectionContext): SettingsSection {
  const body = (
    <div>
      {mailServer ? (
        <p>
          Mail goes out through <code>{mailServer}</code>.
        </p>
      ) : (
        <MailOff what="no notification email is sent; each waits, pending, until the server has a mail server" />
      )}
      <p>
        {form.notificationEmail ? `Each submission is mailed to ${form.notificationEmail}` : "No notification email is set"} (change it under General).{" "}
        <a href={`/dashboard/forms/${form.id}/deliveries`}>See what was sent</a>.
      </p>
    </div>
  );
  // Nothing here changes anything: readers see it as it is.
  return { id: "notifications", title: "Notifications", body, view: body };
}
