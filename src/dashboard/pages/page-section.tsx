/** @jsxImportSource hono/jsx */
import type { Form, FormPage } from "../../domain/types.ts";
import { CATALOGS } from "../../lib/i18n/index.ts";
import { PAGE_LIMITS } from "../../services/form-page.ts";
import type { Session } from "../../services/people/users.ts";
import { CopyButton, Csrf, Field, Notice } from "./layout.tsx";
import { Facts, type SettingsSection } from "./settings.tsx";

/** The page section's inputs as the page holds them: the saved setting, or what was just posted. */
export interface PageInput {
  enabled: boolean;
  title: string;
  description: string;
  logoUrl: string;
  accentColor: string;
  submitLabel: string;
  thankYouMessage: string;
  language: string;
}

/** Each input's name in the section's form, and the API's field it stands for (`page.title`). */
export const PAGE_INPUTS = {
  pageTitle: "title",
  pageDescription: "description",
  pageLogoUrl: "logoUrl",
  pageAccentColor: "accentColor",
  pageSubmitLabel: "submitLabel",
  pageThankYouMessage: "thankYouMessage",
  pageLanguage: "language",
} as const satisfies Record<string, keyof Omit<PageInput, "enabled">>;

/** The inputs of a form's saved page. */
export function pageInput(page: FormPage): PageInput {
  return {
    enabled: page.enabled,
    title: page.title ?? "",
    description: page.description ?? "",
    logoUrl: page.logoUrl ?? "",
    accentColor: page.accentColor ?? "",
    submitLabel: page.submitLabel ?? "",
    thankYouMessage: page.thankYouMessage ?? "",
    language: page.language ?? "",
  };
}

/** The inputs as posted. */
export function postedPageInput(body: URLSearchParams): PageInput {
  const posted = Object.fromEntries(Object.entries(PAGE_INPUTS).map(([name, key]) => [key, body.get(name) ?? ""]));
  return { ...(posted as Omit<PageInput, "enabled">), enabled: body.get("pageEnabled") === "true" };
}

/** The API body the inputs stand for: empty texts as null (the visitor's catalog's words). */
export function pageBody(input: PageInput): Record<string, unknown> {
  const text = (value: string) => (value.trim() === "" ? null : value.trim());
  return {
    enabled: input.enabled,
    title: text(input.title),
    description: text(input.description),
    logoUrl: text(input.logoUrl),
    accentColor: text(input.accentColor),
    submitLabel: text(input.submitLabel),
    thankYouMessage: text(input.thankYouMessage),
    language: text(input.language),
  };
}

/** The views, kept submissions and conversion of the form's page over the last days. */
export interface PageNumbers {
  days: number;
  views: number;
  submissions: number;
  /** A percentage, or null without views. */
  conversion: number | null;
}

/** The address of the page's preview: the posted inputs, or the saved page, shown whether or not it is enabled. */
const previewUrl = (form: Form, input: PageInput) =>
  `/dashboard/forms/${form.id}/page/preview?${new URLSearchParams(Object.entries(PAGE_INPUTS).map(([name, key]) => [name, input[key]]))}`;

/** The form's page: turn it on, brand it, choose its language, see it; its views and conversion. */
export function pageSection(props: {
  session: Session;
  form: Form;
  input: PageInput;
  numbers: PageNumbers;
  errors?: Record<string, string | undefined>;
  notice?: string;
}): SettingsSection {
  const { session, form, input, numbers, errors = {} } = props;
  const noFields = form.fields.length === 0;
  const conversion = numbers.conversion === null ? "—" : `${numbers.conversion}%`;
  const stats = <p id="page-stats">{`Last ${numbers.days} days: ${numbers.views} views, ${numbers.submissions} submissions, conversion ${conversion}.`}</p>;
  const languages = Object.entries(CATALOGS).map(([code, catalog]) => (
    <option value={code} selected={input.language === code}>
      {`${catalog.language} (${code})`}
    </option>
  ));
  return {
    id: "page",
    title: "Page",
    body: (
      <div>
        <form method="post" action={`/dashboard/forms/${form.id}/settings/page`} class="grid">
          <Csrf session={session} />
          <Notice text={props.notice} />
          <Notice text={errors.form} kind="error" />
          <p class="hint">
            A page formsvc serves itself at the form's address, made from its declared fields, for a visitor with no site of yours: a link, a QR code, an embed.
            Texts left empty are said in the visitor's language.
          </p>
          {noFields ? (
            <p class="callout" role="note">
              The page is made from the form's fields: declare them in the Fields section first.
            </p>
          ) : null}
          <div class="field check">
            <input type="checkbox" id="f-pageEnabled" name="pageEnabled" value="true" checked={input.enabled} />
            <label for="f-pageEnabled">Serve the form's page and its embed</label>
          </div>
          <Field
            label="Title"
            name="pageTitle"
            value={input.title}
            hint={`Empty: the form's name. At most ${PAGE_LIMITS.title} characters.`}
            error={errors.title}
          />
          <Field label="Description" name="pageDescription" value={input.description} multiline hint="Shown under the title." error={errors.description} />
          <Field label="Logo URL" name="pageLogoUrl" type="url" value={input.logoUrl} hint="An https address of an image." error={errors.logoUrl} />
          <Field
            label="Accent colour"
            name="pageAccentColor"
            value={input.accentColor}
            hint="#rgb or #rrggbb, for the button and focus."
            error={errors.accentColor}
          />
          <Field
            label="Button label"
            name="pageSubmitLabel"
            value={input.submitLabel}
            hint="Empty: Send, in the visitor's language."
            error={errors.submitLabel}
          />
          <Field
            label="Thank-you message"
            name="pageThankYouMessage"
            value={input.thankYouMessage}
            multiline
            hint="Shown after a post when the form has no redirect URL."
            error={errors.thankYouMessage}
          />
          <div class={`field${errors.language ? " has-error" : ""}`}>
            <label for="f-pageLanguage">Language</label>
            <select id="f-pageLanguage" name="pageLanguage" aria-describedby="f-pageLanguage-hint">
              <option value="">The visitor's (from their browser)</option>
              {languages}
            </select>
            <p class="hint" id="f-pageLanguage-hint">
              The page's words, errors and thank-you text.
            </p>
          </div>
          <div class="actions">
            <button type="submit">Save page</button>
            <button type="submit" name="preview" value="1" class="secondary">
              Preview
            </button>
          </div>
        </form>
        {stats}
        <h3 id="page-preview-label">Preview</h3>
        <iframe class="page-preview" title="Preview of the form's page" src={previewUrl(form, input)} sandbox="" loading="lazy" />
      </div>
    ),
    view: (
      <div>
        <Facts facts={[["Page", input.enabled ? `on, at ${form.submitUrl}` : "off"]]} />
        {stats}
      </div>
    ),
  };
}

/** The page's link, a QR code of it and the embed snippet, for "Put it on your site" (with the page on). */
export function PageShare({ form }: { form: Form }) {
  if (!form.page.enabled || form.fields.length === 0) return null;
  const origin = new URL(form.submitUrl).origin;
  const embed = `<div data-formsvc="${form.slug}"></div>\n<script src="${origin}/embed.js" async></script>`;
  return (
    <div>
      <h3 id="page-link-label">The form's page</h3>
      <p>
        <a href={form.submitUrl} id="page-link">
          {form.submitUrl}
        </a>{" "}
        <CopyButton target="page-link" />
      </p>
      <img class="qr" src={`/dashboard/forms/${form.id}/page/qr.svg`} alt={`QR code of ${form.submitUrl}`} width="160" height="160" />
      <p>
        <a href={`/dashboard/forms/${form.id}/page/qr.svg`} download={`${form.slug}-qr.svg`}>
          Download the QR code (SVG)
        </a>
      </p>
      <h3 id="embed-label">Embed on any site</h3>
      <pre aria-labelledby="embed-label" tabindex={0}>
        <code id="snippet-embed">{embed}</code>
      </pre>
      <CopyButton target="snippet-embed" label="Copy embed" />
    </div>
  );
}
