/** @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import type { FieldRule, Form } from "../../domain/types.ts";
import { can } from "../../services/people/roles.ts";
import type { Session } from "../../services/people/users.ts";
import { CopyButton, Csrf, Field, FormHeader, Layout, Notice } from "./layout.tsx";

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

export const settingsInput = (form: Form): SettingsInput => ({
  name: form.name,
  slug: form.slug,
  isActive: form.isActive,
  notificationEmail: form.notificationEmail ?? "",
  redirectUrl: form.redirectUrl ?? "",
  allowedDomains: form.allowedDomains.join("\n"),
});

/** The ALTCHA widget's lines of the snippet, when the form has that captcha. */
const altchaOf = (form: Form) => {
  if (form.captcha?.provider !== "altcha") return null;
  const origin = new URL(form.submitUrl).origin;
  return {
    script: `<script async defer src="${origin}/altcha.js" type="module"></script>\n`,
    widget: `\n  <altcha-widget challenge="${form.submitUrl}/altcha"></altcha-widget>`,
  };
};

const attr = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** One declared field as the input a browser checks before it posts: its type, required, lengths, range, pattern. */
function inputFor(rule: FieldRule): string {
  const name = attr(rule.name);
  const label = attr(rule.label || rule.name);
  const checks = [
    rule.required ? " required" : "",
    rule.minLength !== undefined ? ` minlength="${rule.minLength}"` : "",
    rule.maxLength !== undefined ? ` maxlength="${rule.maxLength}"` : "",
    rule.min !== undefined ? ` min="${rule.min}"` : "",
    rule.max !== undefined ? ` max="${rule.max}"` : "",
    rule.pattern !== undefined ? ` pattern="${attr(rule.pattern)}"` : "",
  ].join("");
  if (rule.type === "textarea") return `<label>${label} <textarea name="${name}"${checks}></textarea></label>`;
  if (rule.type === "select") {
    const options = (rule.options ?? []).map((option) => `<option>${attr(option)}</option>`).join("");
    return `<label>${label} <select name="${name}"${checks}>${rule.required ? "" : "<option></option>"}${options}</select></label>`;
  }
  return `<label>${label} <input name="${name}" type="${rule.type}"${checks}></label>`;
}

/**
 * The HTML to paste into a page: a plain form posting to this form's address, with the honeypot; its inputs are
 * the form's declared fields when it has some (so the browser checks what formsvc will), else an email and a message;
 * with the ALTCHA widget when the form has that captcha.
 */
export function snippetHtml(form: Form): string {
  const altcha = altchaOf(form);
  const inputs =
    form.fields.length > 0
      ? form.fields.map(inputFor)
      : ['<label>Email <input name="email" type="email" required></label>', '<label>Message <textarea name="message"></textarea></label>'];
  const multipart = form.fields.some((rule) => rule.type === "file") ? ' enctype="multipart/form-data"' : "";
  return `${altcha?.script ?? ""}<form action="${form.submitUrl}" method="post"${multipart}>
${inputs.map((input) => `  ${input}`).join("\n")}
  <input name="_gotcha" style="display:none" tabindex="-1" autocomplete="off">${altcha?.widget ?? ""}
  <button>Send</button>
</form>`;
}

/** The same from a script, asking for JSON back. */
export function snippetFetch(form: Form): string {
  return `// One Idempotency-Key per submission: a retry after a network error sends the same one and is stored once.
const key = crypto.randomUUID();
const send = () => fetch("${form.submitUrl}", {
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json", "Idempotency-Key": key },
  body: JSON.stringify({ email: "ada@example.com", message: "Hello"${
    altchaOf(form)
      ? `,\n    // the ALTCHA widget's solution, from the hidden field it adds to the form\n    altcha: document.querySelector("input[name=altcha]").value`
      : ""
  } }),
});
const answer = await send().catch(send); // tried once more if the network failed
const result = await answer.json(); // {success: true, message, id, next} or {error: {code, message}, errors: [{field, code, message}]}`;
}

/**
 * One section of the settings page. The page is a list of these, so that further settings (webhooks,
 * captcha, files) are added as sections of their own.
 */
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

export interface SettingsProps {
  session: Session;
  form: Form;
  input: SettingsInput;
  errors?: Errors;
  notice?: string;
  /** Sections added after the built-in ones, before the danger zone. */
  extra?: SettingsSection[];
  /** More ways to put the form on a site, beside the snippets (the form's page, its QR code, the embed). */
  share?: Child;
}

/**
 * Where each section goes on the page, by id: a section added later (fields, confirmation) takes its place
 * here; one with an id not listed goes before the snippet.
 */
const SECTION_ORDER = [
  "general",
  "fields",
  "page",
  "captcha",
  "spam",
  "files",
  "webhooks",
  "destinations",
  "notifications",
  "confirmation",
  "retention",
  "snippet",
  "test",
  "delete",
];
const rank = (id: string) => (SECTION_ORDER.includes(id) ? SECTION_ORDER.indexOf(id) : SECTION_ORDER.indexOf("snippet") - 0.5);

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

/** A form's settings: every field, the snippet, a test submission, and deletion with typed confirmation. */
export function SettingsPage({ session, form, input, errors = {}, notice, extra = [], share }: SettingsProps) {
  const base = `/dashboard/forms/${form.id}`;
  const snippet = (
    <div>
      <p>
        Submissions go to <code id="submit-url">{form.submitUrl}</code> <CopyButton target="submit-url" />
      </p>
      <h3 id="html-label">HTML form</h3>
      <pre aria-labelledby="html-label" tabindex={0}>
        <code id="snippet-html">{snippetHtml(form)}</code>
      </pre>
      <CopyButton target="snippet-html" label="Copy HTML" />
      <h3 id="fetch-label">From a script with fetch()</h3>
      <pre aria-labelledby="fetch-label" tabindex={0}>
        <code id="snippet-fetch">{snippetFetch(form)}</code>
      </pre>
      <CopyButton target="snippet-fetch" label="Copy script" />
      {share}
    </div>
  );
  const sections: SettingsSection[] = [
    {
      id: "general",
      title: "General",
      body: (
        <form method="post" action={`${base}/settings`} class="grid">
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
    },
    {
      id: "snippet",
      title: "Put it on your site",
      body: snippet,
      view: snippet,
    },
    {
      id: "test",
      title: "Test submission",
      body: (
        <form method="post" action={`${base}/test`}>
          <Csrf session={session} />
          <Notice text={errors.test} kind="error" />
          <p>Stores a submission as your site would, and sends its notification email{form.mode === "test" ? " (recorded, not sent, for a test form)" : ""}.</p>
          <button type="submit" class="secondary">
            Send a test submission
          </button>
        </form>
      ),
    },
    ...extra,
    {
      id: "delete",
      title: "Delete this form",
      body: (
        <form method="post" action={`${base}/delete`}>
          <Csrf session={session} />
          <p>The form and all its {form.submissionCount} submissions are deleted for good.</p>
          <Field label={`Type the form's name, ${form.name}, to confirm`} name="confirm" required error={errors.confirm} autocomplete="off" />
          <button type="submit" class="danger">
            Delete form
          </button>
        </form>
      ),
    },
  ];
  sections.sort((a, b) => rank(a.id) - rank(b.id));
  const editable = can(session.user.role, "edit");
  const shown = editable ? sections : sections.filter((section) => section.view !== undefined).map((section) => ({ ...section, body: section.view }));
  return (
    <Layout title={`${form.name}: settings`} session={session} section="forms">
      <FormHeader form={form} tab="settings" />
      <Notice text={notice} />
      {editable ? null : (
        <p class="callout" role="note">
          You can read these settings. Changing them needs an editor, admin or owner of the account.
        </p>
      )}
      {shown.map((section) => (
        <section class={`card${section.id === "delete" ? " danger-zone" : ""}`} id={section.id} aria-labelledby={`${section.id}-title`}>
          <h2 id={`${section.id}-title`}>{section.title}</h2>
          {section.body}
        </section>
      ))}
    </Layout>
  );
}
