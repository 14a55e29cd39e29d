// Which language a visitor reads, and its catalog: `_language` (a special field of the post), else the form
// page's language, else the browser's Accept-Language, else English (docs/api.md, "Languages").
import { de } from "./de.ts";
import { en, type Messages } from "./en.ts";
import { es } from "./es.ts";
import { fr } from "./fr.ts";
import { it } from "./it.ts";
import { ja } from "./ja.ts";
import { nl } from "./nl.ts";
import { pl } from "./pl.ts";
import { pt } from "./pt.ts";
import { zh } from "./zh.ts";

export type { Messages } from "./en.ts";

/** Every catalog, by its language's code (ISO 639-1). */
export const CATALOGS: Readonly<Record<string, Messages>> = Object.freeze({ en, de, fr, es, it, pt, nl, pl, ja, zh });

/** The languages a visitor may read, English first. */
export const LANGUAGES = Object.keys(CATALOGS) as readonly string[];

/** The language a visitor reads when nothing else says. */
export const DEFAULT_LANGUAGE = "en";

/** The catalog's code for a language tag (`de-CH` → `de`, `zh-Hans-CN` → `zh`), or null when there is none. */
export function knownLanguage(tag: unknown): string | null {
  if (typeof tag !== "string") return null;
  const primary = tag.trim().toLowerCase().split(/[-_]/)[0] ?? "";
  return Object.hasOwn(CATALOGS, primary) ? primary : null;
}

/** The languages of an Accept-Language header, best first (by q; equal q keep their order), q=0 left out. */
function acceptedLanguages(header: string): string[] {
  return header
    .split(",")
    .slice(0, 30)
    .map((part, index) => {
      const [tag = "", ...params] = part.trim().split(";");
      const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
      const weight = q === undefined ? 1 : Number(q.slice(2));
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((entry) => entry.weight > 0 && entry.tag !== "" && entry.tag !== "*")
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((entry) => entry.tag);
}

/** What a visitor's language is chosen from, first to last. */
export interface LanguageChoice {
  /** The post's `_language` field. */
  field?: unknown;
  /** The language the form's page is set to. */
  form?: string | null;
  /** The request's Accept-Language header. */
  acceptLanguage?: string | null;
}

/** The visitor's language: the first of `_language`, the form's, Accept-Language that has a catalog; else English. */
export function pickLanguage(choice: LanguageChoice): string {
  const fromField = knownLanguage(choice.field);
  if (fromField) return fromField;
  const fromForm = knownLanguage(choice.form);
  if (fromForm) return fromForm;
  for (const tag of acceptedLanguages(choice.acceptLanguage ?? "")) {
    const known = knownLanguage(tag);
    if (known) return known;
  }
  return DEFAULT_LANGUAGE;
}

/** The catalog of a language code (English for one without a catalog). */
export const messagesFor = (language: string): Messages => CATALOGS[language] ?? en;
