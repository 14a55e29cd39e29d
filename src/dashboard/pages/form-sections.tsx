/** @jsxImportSource hono/jsx */
import { CAPTCHA_PROVIDERS, DEFAULT_SPAM_RETENTION_DAYS, type Form } from "../../domain/types.ts";
import { MAX_FILES } from "../../http/multipart.ts";
import { counted } from "../../lib/plural.ts";
import { RETENTION_DAYS } from "../../lib/validate.ts";
import { MailOff } from "./mail.tsx";
import { Check, Csrf, Field, Notice } from "./layout.tsx";
import type { SectionContext } from "./section-context.ts";
import { Facts, type SettingsSection } from "./settings.tsx";

const MB = (bytes: number) => `${Math.round((bytes / 1048576) * 10) / 10} MB`;
// The fragment brings the owner back to the section when the page answers with its errors.
const action = (form: Form, section: string) => `/dashboard/forms/${form.id}/settings/${section}#${section}`;

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
          {`Up to ${counted(MAX_FILES, "file")} a submission, the whole post (its files and fields together) up to ${MB(limits.maxBody)} (the server's --max-body)${
            limits.maxFileSize < limits.maxBody ? `, each file up to ${MB(limits.maxFileSize)} (--max-file-size)` : ""
          }. Files are kept with their submission and only signed-in users can download them.`}
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
          ["Submissions kept", form.retentionDays === null ? "for ever" : counted(form.retentionDays, "day")],
          ["Spam kept", form.spamRetentionDays === null ? "for ever" : counted(form.spamRetentionDays, "day")],
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
    title: "Captcha",
    body: (
      <form method="post" action={action(form, "captcha")} class="grid">
        <Csrf session={session} />
        <Notice text={errors.captcha} kind="error" />
        <p class="hint">
          {current === "altcha"
            ? "The form uses formsvc's own captcha, ALTCHA (set under Spam); choosing a provider here replaces it."
            : "A captcha of reCAPTCHA, hCaptcha or Turnstile, checked with the provider's secret key. ALTCHA, formsvc's own captcha, needs no other service: turn it on under Spam."}
        </p>
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
