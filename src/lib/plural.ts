const rules = new Intl.PluralRules("en");

/**
 * A count with its noun in the form English gives that count: `counted(1, "submission")` is "1 submission",
 * `counted(3, "submission")` "3 submissions"; `other` names an irregular plural. Every count a page shows goes
 * through here, never through `${n} things`.
 */
export function counted(count: number, one: string, other = `${one}s`): string {
  return `${count} ${rules.select(count) === "one" ? one : other}`;
}
