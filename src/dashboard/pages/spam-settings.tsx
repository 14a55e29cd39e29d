/** @jsxImportSource hono/jsx */
import { COMPLEXITY_RANGE, DEFAULT_COMPLEXITY, FILTER_MIN_MARKS } from "../../domain/limits.ts";
import type { Form } from "../../domain/types.ts";
import type { Session } from "../../services/people/users.ts";
import { Csrf, Field, Notice } from "./layout.tsx";
import { Facts, type SettingsSection } from "./settings.tsx";

/** What the spam section shows: the form's values, or what was just posted when the service refused it. */
export interface SpamInput {
  altcha: boolean;
  complexity: string;
  blockedWords: string;
  blockedEmails: string;
  blockDisposableEmails: boolean;
  maxLinks: string;
  duplicateWindowHours: string;
  filterEnabled: boolean;
  threshold: string;
}

export const spamInput = (form: Form): SpamInput => ({
  altcha: form.captcha?.provider === "altcha",
  complexity: form.captcha && "complexity" in form.captcha ? String(form.captcha.complexity) : "",
  blockedWords: (form.spamRules?.blockedWords ?? []).join("\n"),
  blockedEmails: (form.spamRules?.blockedEmails ?? []).join("\n"),
  blockDisposableEmails: form.spamRules?.blockDisposableEmails ?? false,
  maxLinks: form.spamRules?.maxLinks === undefined ? "" : String(form.spamRules.maxLinks),
  duplicateWindowHours: form.spamRules?.duplicateWindowHours === undefined ? "" : String(form.spamRules.duplicateWindowHours),
  filterEnabled: form.spamFilter.enabled,
  threshold: String(form.spamFilter.threshold),
});

/** The section's posted fields, as the page shows them again. */
export const postedSpamInput = (body: { get(name: string): string | null }): SpamInput => ({
  altcha: body.get("altcha") === "true",
  complexity: (body.get("complexity") ?? "").trim(),
  blockedWords: body.get("blockedWords") ?? "",
  blockedEmails: body.get("blockedEmails") ?? "",
  blockDisposableEmails: body.get("blockDisposableEmails") === "true",
  maxLinks: (body.get("maxLinks") ?? "").trim(),
  duplicateWindowHours: (body.get("duplicateWindowHours") ?? "").trim(),
  filterEnabled: body.get("filterEnabled") === "true",
  threshold: (body.get("threshold") ?? "").trim(),
});

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
// A number as typed, or the text itself so that the service refuses it with its own message.
const number = (text: string) => (text === "" ? undefined : Number.isNaN(Number(text)) ? text : Number(text));

/**
 * The form update the section asks for; a captcha of another provider is left as it is unless ALTCHA is turned on,
 * and the filter's threshold only when it differs from the one shown.
 */
export function spamUpdate(input: SpamInput, form: Form): Record<string, unknown> {
  // The threshold is sent only when it was changed: a form on the default keeps following it.
  const threshold = number(input.threshold);
  const update: Record<string, unknown> = {
    spamRules: {
      blockedWords: lines(input.blockedWords),
      blockedEmails: lines(input.blockedEmails),
      blockDisposableEmails: input.blockDisposableEmails || undefined,
      maxLinks: number(input.maxLinks),
      duplicateWindowHours: number(input.duplicateWindowHours),
    },
    spamFilter: { enabled: input.filterEnabled, ...(threshold === undefined || threshold === form.spamFilter.threshold ? {} : { threshold }) },
  };
  if (input.altcha) update.captcha = { provider: "altcha", ...(input.complexity === "" ? {} : { complexity: number(input.complexity) }) };
  else if (form.captcha?.provider === "altcha") update.captcha = null;
  return update;
}

/** Which input of the section an error of the service names (spamRules.blockedWords.3 is the blocked words box). */
export function spamErrorField(field: string | undefined): string {
  const known: Record<string, string> = {
    "captcha.complexity": "complexity",
    "spamRules.blockedWords": "blockedWords",
    "spamRules.blockedEmails": "blockedEmails",
    "spamRules.maxLinks": "maxLinks",
    "spamRules.duplicateWindowHours": "duplicateWindowHours",
    "spamFilter.threshold": "threshold",
  };
  return known[(field ?? "").split(".").slice(0, 2).join(".")] ?? "spam";
}

function Check({ name, label, checked }: { name: string; label: string; checked: boolean }) {
  return (
    <div class="field check">
      <input type="checkbox" id={`f-${name}`} name={name} value="true" checked={checked} />
      <label for={`f-${name}`}>{label}</label>
    </div>
  );
}

/** The settings page's spam section: the ALTCHA captcha, the rules, and the learning filter. */
export function spamSection({
  session,
  form,
  input,
  errors = {},
}: {
  session: Session;
  form: Form;
  input: SpamInput;
  errors?: Record<string, string | undefined>;
}): SettingsSection {
  const hosted = form.captcha && form.captcha.provider !== "altcha" ? form.captcha.provider : null;
  return {
    id: "spam",
    title: "Spam",
    body: (
      <form method="post" action={`/dashboard/forms/${form.id}/settings/spam`} class="grid">
        <Csrf session={session} />
        <Notice text={errors.spam} kind="error" />
        <Check name="altcha" label="ALTCHA captcha: visitors' browsers solve a small puzzle served by formsvc (no third party)" checked={input.altcha} />
        {hosted ? <p class="hint">The form checks a {hosted} captcha now; turning ALTCHA on replaces it.</p> : null}
        <Field
          label="ALTCHA complexity"
          name="complexity"
          value={input.complexity}
          hint={`${COMPLEXITY_RANGE.min} to ${COMPLEXITY_RANGE.max}; higher is slower for bots and people alike. Empty: ${DEFAULT_COMPLEXITY}.`}
          error={errors.complexity}
        />
        <Field
          label="Blocked words and phrases"
          name="blockedWords"
          value={input.blockedWords}
          multiline
          hint="One per line, matched as whole words, ignoring case."
          error={errors.blockedWords}
        />
        <Field
          label="Blocked emails"
          name="blockedEmails"
          value={input.blockedEmails}
          multiline
          hint="One per line: an address, or @domain for a whole domain."
          error={errors.blockedEmails}
        />
        <Check name="blockDisposableEmails" label="Block disposable email addresses" checked={input.blockDisposableEmails} />
        <Field label="Most links in a submission" name="maxLinks" value={input.maxLinks} hint="Empty: any number." error={errors.maxLinks} />
        <Field
          label="Duplicate window, hours"
          name="duplicateWindowHours"
          value={input.duplicateWindowHours}
          hint="The same data again within this many hours is spam. Empty: off."
          error={errors.duplicateWindowHours}
        />
        <Check
          name="filterEnabled"
          label={`Learning filter: judge submissions by what you marked spam and not spam (acts after ${FILTER_MIN_MARKS} of each)`}
          checked={input.filterEnabled}
        />
        <Field
          label="Filter threshold"
          name="threshold"
          value={input.threshold}
          hint="A score from 0 to 1 over which a submission is spam."
          error={errors.threshold}
        />
        <div class="actions">
          <button type="submit">Save spam settings</button>
        </div>
      </form>
    ),
    view: (
      <Facts
        facts={[
          ["ALTCHA captcha", form.captcha?.provider === "altcha" ? `on, complexity ${input.complexity || DEFAULT_COMPLEXITY}` : "off"],
          ["Blocked words and phrases", input.blockedWords || "none"],
          ["Blocked emails", input.blockedEmails || "none"],
          ["Disposable email addresses", input.blockDisposableEmails ? "blocked" : "allowed"],
          ["Most links in a submission", input.maxLinks || "any number"],
          ["Duplicate window", input.duplicateWindowHours ? `${input.duplicateWindowHours} hours` : "off"],
          ["Learning filter", input.filterEnabled ? `on, threshold ${input.threshold}` : "off"],
        ]}
      />
    ),
  };
}
