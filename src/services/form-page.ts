// A form's own page and embed (docs/api.md, "The form's page"): the setting as the API takes and shows it. What
// the page looks like is src/routes/form-page.ts's; which words it speaks, src/lib/i18n.
import type { FormRow } from "../db/schema.ts";
import type { FormPage } from "../domain/types.ts";
import { memoized } from "../db/prepared.ts";
import { LANGUAGES } from "../lib/i18n/index.ts";
import { httpUrl, type Zod } from "../lib/validate.ts";

/** The page of a form that has never set one: off, every text the visitor's catalog's. */
export const NO_PAGE: FormPage = Object.freeze({
  enabled: false,
  title: null,
  description: null,
  logoUrl: null,
  accentColor: null,
  submitLabel: null,
  thankYouMessage: null,
  language: null,
});

/** The longest texts of a page: a title, a button's label, a description or thank-you message. */
export const PAGE_LIMITS = { title: 200, submitLabel: 60, description: 2000, thankYouMessage: 2000 } as const;

const ACCENT = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;

const text = (z: Zod, field: keyof typeof PAGE_LIMITS) =>
  z
    .string({ error: `page.${field} must be text.` })
    .trim()
    .max(PAGE_LIMITS[field], `page.${field} must be at most ${PAGE_LIMITS[field]} characters.`)
    .refine((s) => !/[\u0000-\u0008\u000b-\u001f\u007f]/.test(s), `page.${field} must not contain control characters.`)
    .nullish();

/** `page` on a form's create and update (the OpenAPI document is generated from it too). */
export const pageSchema = (z: Zod) =>
  z.strictObject(
    {
      enabled: z.boolean({ error: "page.enabled must be true or false." }),
      title: text(z, "title"),
      description: text(z, "description"),
      logoUrl: httpUrl(z, "page.logoUrl").nullish(),
      accentColor: z
        .string({ error: "page.accentColor must be a colour such as #0b5cad." })
        .trim()
        .regex(ACCENT, "page.accentColor must be a colour such as #0b5cad (#rgb or #rrggbb).")
        .nullish(),
      submitLabel: text(z, "submitLabel"),
      thankYouMessage: text(z, "thankYouMessage"),
      language: z.enum(LANGUAGES as [string, ...string[]], { error: `page.language must be one of ${LANGUAGES.join(", ")}, or null.` }).nullish(),
    },
    { error: "page must be an object {enabled, title?, description?, logoUrl?, accentColor?, submitLabel?, thankYouMessage?, language?}." },
  );

type PageInput = ReturnType<ReturnType<typeof pageSchema>["parse"]>;

/** The stored JSON of a page setting (every key present, empty texts as null); undefined leaves it as it is. */
export function storedPage(input: PageInput | null | undefined): string | null | undefined {
  if (input === undefined) return undefined;
  if (input === null) return null;
  const value = (s: string | null | undefined) => (s ? s : null);
  const page: FormPage = {
    enabled: input.enabled,
    title: value(input.title),
    description: value(input.description),
    logoUrl: value(input.logoUrl),
    accentColor: value(input.accentColor?.toLowerCase()),
    submitLabel: value(input.submitLabel),
    thankYouMessage: value(input.thankYouMessage),
    language: value(input.language),
  };
  return JSON.stringify(page);
}

// Parsed once per distinct text, not per view; frozen because every caller shares the one object.
const parsed = memoized((text: string) => Object.freeze({ ...NO_PAGE, ...JSON.parse(text) }) as FormPage);

/** A form's page setting (NO_PAGE when it never set one). */
export const pageOf = (row: Pick<FormRow, "page">): FormPage => (row.page ? parsed(row.page) : NO_PAGE);
