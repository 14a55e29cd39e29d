/** @jsxImportSource hono/jsx */
import { confirmationSection } from "./confirmation.tsx";
import { destinationsSection } from "./destinations.tsx";
import { fieldsSection } from "./fields-section.tsx";
import { PageShare, pageSection } from "./page-section.tsx";
import { captchaSection, filesSection, notificationsSection, retentionSection } from "./form-sections.tsx";
import type { SectionContext } from "./section-context.ts";
import { deleteSection, generalSection, type SettingsSection, snippetSection, testSection } from "./settings.tsx";
import { spamSection } from "./spam-settings.tsx";
import { webhooksSection } from "./webhooks.tsx";

/**
 * The sections of a form's settings, in the order the page shows them (the index lists them the same): a new
 * setting is one entry here. A form with no submission yet shows "Put it on your site" first, as that is what
 * its owner needs next.
 */
export const SETTINGS_SECTIONS: ((context: SectionContext) => SettingsSection)[] = [
  (c) => generalSection({ ...c, input: c.general }),
  (c) => snippetSection(c, <PageShare form={c.form} />),
  (c) => fieldsSection({ ...c, input: c.fields }),
  (c) => pageSection({ session: c.session, form: c.form, ...c.page }),
  (c) => captchaSection(c),
  (c) => spamSection({ ...c, input: c.spam }),
  (c) => filesSection(c),
  (c) => webhooksSection(c),
  (c) => destinationsSection({ session: c.session, form: c.form, errors: c.errors, ...c.destinations }),
  (c) => notificationsSection(c),
  (c) => confirmationSection({ session: c.session, form: c.form, ...c.confirmation }),
  (c) => retentionSection(c),
  (c) => testSection(c),
  (c) => deleteSection(c),
];

/** Every section for this context, in the page's order. */
export function settingsSections(context: SectionContext): SettingsSection[] {
  const sections = SETTINGS_SECTIONS.map((build) => build(context));
  if (context.form.submissionCount > 0) return sections;
  const snippet = sections.find((section) => section.id === "snippet");
  return snippet ? [snippet, ...sections.filter((section) => section !== snippet)] : sections;
}
