// Plural forms by the language's own rules (Intl.PluralRules): Polish says "2 znaki" but "5 znaków", Japanese
// has one form, English two. A message picks its words here, never by `n === 1`.

/** The words of a counted phrase, one per plural category the language uses; `#` stands for the number. */
export type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

const rules = new Map<string, Intl.PluralRules>();

/** The phrase for `n` in `locale`, `#` replaced by the number as that language writes it. */
export function plural(locale: string, n: number, forms: PluralForms): string {
  let rule = rules.get(locale);
  if (!rule) {
    rule = new Intl.PluralRules(locale);
    rules.set(locale, rule);
  }
  const words = forms[rule.select(n)] ?? forms.other;
  return words.replace("#", n.toLocaleString(locale));
}
