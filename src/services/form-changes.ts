import type { FormRow } from "../db/schema.ts";
import type { Confirmation, FieldRule, FormPayment, SpamRules } from "../domain/types.ts";
import { counted } from "../lib/plural.ts";

// The activity log's sentence for a change to a form's settings: what changed, in the words of the settings
// page, never a secret. "Changed the confirmation email of "Contact": double opt-in off."

type Changes = Partial<FormRow>;
const onOff = (value: unknown) => (value ? "on" : "off");
const quoted = (value: unknown) => `"${String(value).slice(0, 80)}"`;
const json = <T>(text: string | null | undefined): T | null => (text ? (JSON.parse(text) as T) : null);
const days = (value: number | null | undefined, what: string) =>
  value === null || value === undefined ? `${what} kept for ever` : `${what} kept ${counted(value, "day")}`;
const OTHER_FIELDS: Record<string, string> = { keep: "kept", drop: "dropped", refuse: "refused" };

/** Each setting of the confirmation email that differs, in words. */
function confirmationParts(before: Confirmation | null, after: Confirmation | null): string[] {
  if (!after) return ["removed"];
  const words: Record<keyof Confirmation, (value: never) => string> = {
    enabled: (v: boolean) => onOff(v),
    field: (v: string) => `address field ${v}`,
    subject: (v: string) => `subject ${quoted(v)}`,
    text: () => "text changed",
    fromName: (v: string | null) => (v ? `from ${quoted(v)}` : "from the server's name"),
    replyTo: (v: string | null) => (v ? `Reply-To ${v}` : "no Reply-To"),
    doubleOptIn: (v: boolean) => `double opt-in ${onOff(v)}`,
    optInDays: (v: number) => `link valid ${counted(v, "day")}`,
    perAddressHours: (v: number) => `one per address per ${counted(v, "hour")}`,
    perFormDaily: (v: number) => `${v} a day at most`,
  } as Record<keyof Confirmation, (value: never) => string>;
  return (Object.keys(words) as (keyof Confirmation)[])
    .filter((key) => JSON.stringify(before?.[key]) !== JSON.stringify(after[key]))
    .map((key) => words[key](after[key] as never));
}

/** Each spam rule that differs, in words (the lists by their length: a blocked word is the owner's own business). */
function spamRuleParts(before: SpamRules | null, after: SpamRules | null): string[] {
  const b = before ?? {};
  const a = after ?? {};
  const parts: string[] = [];
  const list = (name: string, items: string[] | undefined) => `${name}: ${items?.length ?? 0}`;
  if (JSON.stringify(b.blockedWords ?? []) !== JSON.stringify(a.blockedWords ?? [])) parts.push(list("blocked words", a.blockedWords));
  if (JSON.stringify(b.blockedEmails ?? []) !== JSON.stringify(a.blockedEmails ?? [])) parts.push(list("blocked emails", a.blockedEmails));
  if (Boolean(b.blockDisposableEmails) !== Boolean(a.blockDisposableEmails))
    parts.push(`disposable addresses ${a.blockDisposableEmails ? "blocked" : "allowed"}`);
  if (b.maxLinks !== a.maxLinks) parts.push(a.maxLinks === undefined ? "any number of links" : `at most ${counted(a.maxLinks, "link")}`);
  if (b.duplicateWindowHours !== a.duplicateWindowHours)
    parts.push(a.duplicateWindowHours === undefined ? "duplicates allowed" : `duplicate window ${counted(a.duplicateWindowHours, "hour")}`);
  return parts;
}

/** The area each column belongs to on the settings page, and how its new value reads. */
function describe(before: FormRow, column: string, value: unknown): { area: string; part: string } | null {
  switch (column) {
    case "name":
    case "slug":
      return { area: "settings", part: `${column} ${quoted(value)}` };
    case "isActive":
      return { area: "settings", part: value ? "active" : "inactive" };
    case "notificationEmail":
      return { area: "settings", part: value ? `notification email ${value}` : "no notification email" };
    case "redirectUrl":
      return { area: "settings", part: value ? `redirect to ${String(value).slice(0, 80)}` : "no redirect" };
    case "allowedDomains": {
      const domains = json<string[]>(value as string) ?? [];
      return { area: "settings", part: domains.length ? `allowed domains ${domains.join(", ")}` : "any site allowed" };
    }
    case "fileUploads":
      return { area: "settings", part: `file uploads ${onOff(value)}` };
    case "retentionDays":
      return { area: "settings", part: days(value as number | null, "submissions") };
    case "spamRetentionDays":
      return { area: "settings", part: days(value as number | null, "spam") };
    case "captchaProvider":
    case "captchaSecret":
    case "captchaComplexity":
      return { area: "settings", part: "captcha" };
    case "fieldRules": {
      const rules = json<FieldRule[]>(value as string);
      return { area: "fields", part: rules?.length ? rules.map((rule) => rule.name).join(", ") : "none declared" };
    }
    case "otherFields":
      return { area: "fields", part: `fields not declared ${OTHER_FIELDS[value as string] ?? value}` };
    case "confirmation":
      return {
        area: "confirmation email",
        part: confirmationParts(json<Confirmation>(before.confirmation), json<Confirmation>(value as string)).join(", ") || "unchanged",
      };
    case "spamRules":
      return { area: "spam settings", part: spamRuleParts(json<SpamRules>(before.spamRules), json<SpamRules>(value as string)).join(", ") || "unchanged" };
    case "payment": {
      const payment = json<FormPayment>(value as string);
      const amount = payment ? (payment.amount !== undefined ? `${payment.amount} ${payment.currency}` : `${payment.amounts!.length} amounts`) : "";
      return { area: "settings", part: payment ? `payment ${amount} by ${payment.provider}` : "no payment" };
    }
    case "spamFilterEnabled":
      return { area: "spam settings", part: `learning filter ${onOff(value)}` };
    case "spamFilterThreshold":
      return { area: "spam settings", part: `filter threshold ${value ?? "the default"}` };
    default:
      return null;
  }
}

/** The activity log's summary of a change to a form: one sentence, naming the area when the change is in one. */
export function formChangeSummary(before: FormRow, changes: Changes): string {
  const described = Object.entries(changes)
    .map(([column, value]) => describe(before, column, value))
    .filter((entry) => entry !== null);
  const captcha = changes.captchaProvider === null ? "captcha removed" : `captcha ${changes.captchaProvider ?? before.captchaProvider ?? "changed"}`;
  const parts = [...new Set(described.map((entry) => (entry.part === "captcha" ? captcha : entry.part)))];
  const areas = new Set(described.map((entry) => entry.area));
  const area = areas.size === 1 ? [...areas][0] : null;
  return area && area !== "settings" ? `Changed the ${area} of "${before.name}": ${parts.join(", ")}.` : `Changed "${before.name}": ${parts.join(", ")}.`;
}
