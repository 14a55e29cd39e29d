/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { Form } from "../../domain/types.ts";
import { counted } from "../../lib/plural.ts";
import { can } from "../../services/people/roles.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, FormHeader, Layout, Notice } from "./layout.tsx";
import { Snippet } from "./snippet.tsx";

type Errors = Record<string, string | undefined>;

/** What the settings form shows: the form's values, or what was just posted when the service refused it. */
export interface SettingsInput {
  name: string;
  slug: string;
  isActive: boolean;
  notificationEmail: string;
  redirectUrl: string;
  allowedDomains: string;
}

/** The general section's inputs as the form is saved. */
export const settingsInput = (form: Form): SettingsInput => ({
  name: form.name,
  slug: form.slug,
  isActive: form.isActive,
  notificationEmail: form.notificationEmail ?? "",
  redirectUrl: form.redirectUrl ?? "",
  allowedDomains: form.allowedDomains.join("\n"),
});

/** One section of the settings page: the page is the list of sections in pages/settings-sections.tsx. */
export interface SettingsSection {
  id: string;
  title: string;
  body: Child;
  /**
   * What a user who may not change the form (a viewer) sees instead of `body`: the settings as text, no form
   * and no button. A section without one is left out for them.
   */
  view?: Child;
}

/**
 * The address of one section of a form's settings, with the notice of what was just done shown in that section
 * (`at`), and the fragment that scrolls to it: the owner reads the notice where they are.
 */
export const sectionHref = (formId: string, section: string, notice?: string) =>
  `/dashboard/forms/${formId}/settings${notice ? `?notice=${notice}&at=${section}` : ""}#${section}`;

/** Settings as a list of names and values, for a reader who may not change them. */
export function Facts({ facts }: { facts: [string, string][] }) {
  return (
    <dl class="data">
      {facts.map(([name, value]) => (
        <div>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** General: every field of the form object that can be changed. */
export function generalSection({ session, form, input, errors }: { session: Session; form: Form; input: SettingsInput; errors: Errors }): SettingsSection {
  return {
    id: "general",
    title: "General",
    body: (
      <form method="post" action={`/dashboard/forms/${form.id}/settings#general`} class="grid">
        <Csrf session={session} />
        <Notice text={errors.form} kind="error" />
        <Field label="Name" name="name" value={input.name} required error={errors.name} />
        <Field label="Slug" name="slug" value={input.slug} required hint="The public part of the form's address." error={errors.slug} />
        <Field
          label="Notification email"
          name="notificationEmail"
          type="email"
          value={input.notificationEmail}
          hint="Each submission is mailed here. Empty: no email."
          error={errors.notificationEmail}
        />
        <Field
          label="Redirect URL"
          name="redirectUrl"
          type="url"
          value={input.redirectUrl}
          hint="Where a browser goes after submitting. Empty: the thank-you page."
          error={errors.redirectUrl}
        />
        <Field
          label="Allowed domains"
          name="allowedDomains"
          value={input.allowedDomains}
          multiline
          hint="One per line: example.com, *.example.com, localhost:3000. Empty: any site."
          error={errors.allowedDomains}
        />
        <div class="field check">
          <input type="checkbox" id="f-isActive" name="isActive" value="true" checked={input.isActive} />
          <label for="f-isActive">Active: the form takes submissions</label>
        </div>
        <div class="actions">
          <button type="submit">Save settings</button>
        </div>
      </form>
    ),
    view: (
      <Facts
        facts={[
          ["Name", form.name],
          ["Slug", form.slug],
          ["Notification email", form.notificationEmail ?? "none"],
          ["Redirect URL", form.redirectUrl ?? "the thank-you page"],
          ["Allowed domains", form.allowedDomains.length > 0 ? form.allowedDomains.join("\n") : "any site"],
          ["Active", form.isActive ? "yes: the form takes submissions" : "no"],
        ]}
      />
    ),
  };
}

/** Put it on your site: the address, the HTML form and the fetch() example. */
export function snippetSection({ form }: { form: Form }, share?: Child): SettingsSection {
  const snippet = (
    <div>
      <Snippet form={form} />
      {share}
    </div>
  );
  return { id: "snippet", title: "Put it on your site", body: snippet, view: snippet };
}

/** A test submission through the public endpoint's rules. */
export function testSection({ session, form, errors }: { session: Session; form: Form; errors: Errors }): SettingsSection {
  return {
    id: "test",
    title: "Test submission",
    body: (
      <form method="post" action={`/dashboard/forms/${form.id}/test#test`}>
        <Csrf session={session} />
        <Notice text={errors.test} kind="error" />
        <p>Stores a submission as your site would, and sends its notification email{form.mode === "test" ? " (recorded, not sent, for a test form)" : ""}.</p>
        <button type="submit" class="secondary">
          Send a test submission
        </button>
      </form>
    ),
  };
}

/** Deletion of the form, confirmed by typing its name. */
export function deleteSection({ session, form, errors }: { session: Session; form: Form; errors: Errors }): SettingsSection {
  return {
    id: "delete",
    title: "Delete this form",
    body: (
      <form method="post" action={`/dashboard/forms/${form.id}/delete#delete`}>
        <Csrf session={session} />
        <p>
          {form.submissionCount === 0
            ? "The form is deleted for good."
            : `The form and ${form.submissionCount === 1 ? "its one submission are" : `all its ${counted(form.submissionCount, "submission")} are`} deleted for good.`}
        </p>
        <Field label={`Type the form's name, ${form.name}, to confirm`} name="confirm" required error={errors.confirm} autocomplete="off" />
        <button type="submit" class="danger">
          Delete form
        </button>
      </form>
    ),
  };
}

export interface SettingsProps {
  session: Session;
  form: Form;
  /** Every section, in the order shown. */
  sections: SettingsSection[];
  /** The message of what was just done, and the section it belongs to (shown there; at the top when none). */
  notice?: string;
  noticeAt?: string | null;
}

/**
 * A form's settings: an index of its sections (beside them on a wide screen, a strip above them on a phone),
 * then each section under its own address (`#id`). A reader who may not change the form sees each section's
 * `view`; a section without one is left out for them.
 */
export function SettingsPage({ session, form, sections, notice, noticeAt }: SettingsProps) {
  const editable = can(session.user.role, "edit");
  const shown = editable ? sections : sections.filter((section) => section.view !== undefined).map((section) => ({ ...section, body: section.view }));
  const noticeHere = noticeAt && shown.some((section) => section.id === noticeAt) ? noticeAt : null;
  return (
    <Layout title={`${form.name}: settings`} session={session} section="forms">
      <FormHeader form={form} tab="settings" />
      {noticeHere ? null : <Notice text={notice} />}
      {editable ? null : (
        <p class="callout" role="note">
          You can read these settings. Changing them needs an editor, admin or owner of the account.
        </p>
      )}
      <div class="settings">
        <nav class="section-index" aria-label="Sections of the settings">
          <ul>
            {shown.map((section) => (
              <li>
                <a href={`#${section.id}`}>{section.title}</a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="sections">
          {shown.map((section) => (
            <section class={`card${section.id === "delete" ? " danger-zone" : ""}`} id={section.id} aria-labelledby={`${section.id}-title`}>
              <h2 id={`${section.id}-title`}>{section.title}</h2>
              {section.id === noticeHere ? <Notice text={notice} /> : null}
              {section.body}
            </section>
          ))}
        </div>
      </div>
    </Layout>
  );
}
