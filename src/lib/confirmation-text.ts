// The confirmation email to the person who submitted (docs/api.md, "Confirmation email and double opt-in"): the owner's subject and text with the
// submitted values filled in as plain text, cut, and defanged, so that a visitor who chooses the recipient
// cannot also choose a link, a header or a recipient of their own.
import { domainToASCII, domainToUnicode } from "node:url";
import { DEFAULT_LANGUAGE, messagesFor } from "./i18n/index.ts";
import { defang } from "./defang.ts";
import { headerSafe, MAX_SUBJECT, valueText } from "./mail.ts";
import { isEmail } from "./validate.ts";

/** The longest a submitted value is once inserted (in characters, before defanging). */
export const MAX_INSERTED = 500;

/**
 * `{{name}}`, spaces allowed inside the braces; the name is a field of the form, or `form`, `date`, `link`.
 * `{{name|there}}` gives `there` when the submission has no such field.
 */
const PLACEHOLDER = /\{\{\s*([^{}]+?)\s*\}\}/g;

/** Cuts by code points, so that a character outside the BMP is never split in half. */
function cut(text: string, max: number): string {
  const chars = Array.from(text);
  return chars.length > max ? chars.slice(0, max).join("") : text;
}

// What a text body may not carry: controls but tab and line feed (a CR is dropped, CRLF becomes LF).
const BODY_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** What the placeholders are filled from. */
export interface TemplateValues {
  formName: string;
  /** ISO 8601 date-time of the submission. */
  date: string;
  data: Record<string, unknown>;
  /** The double opt-in link (the owner's text may place it with `{{link}}`), or null. */
  link: string | null;
  /** The visitor's language (a catalog's code): the words formsvc adds are in it. English when absent. */
  language?: string;
}

// Where a placeholder filled nothing: the space before it goes too when punctuation or the line's end follows,
// so that "Hello {{name}}," reads "Hello," rather than "Hello ,".
const ABSENT = "\u0000";
const ABSENT_SPACE = new RegExp(`[ \\t]*${ABSENT}(?=[\\s,.;:!?)]|$)|${ABSENT}`, "g");

/** A submitted value as it is inserted: plain text, cut to MAX_INSERTED, defanged; one line in a header. */
function inserted(value: unknown, header: boolean): string {
  const text = cut(valueText(value).replace(/\r\n?/g, "\n"), MAX_INSERTED);
  const clean = header ? headerSafe(text) : text.replace(BODY_UNSAFE, "");
  return defang(clean);
}

/** The text of one placeholder: `form`, `date`, `link`, else the field's value, else its fallback or nothing. */
function placeholder(spec: string, values: TemplateValues, header: boolean): string {
  const bar = spec.indexOf("|");
  const name = bar < 0 ? spec : spec.slice(0, bar).trim();
  if (name === "form") return header ? headerSafe(values.formName) : values.formName;
  if (name === "date") return values.date.slice(0, 10);
  if (name === "link") return header ? "" : (values.link ?? "");
  const value = Object.hasOwn(values.data, name) ? inserted(values.data[name], header) : "";
  if (value.trim() !== "") return value;
  // The fallback is the owner's own text: kept as written (one line in a header).
  const fallback = bar < 0 ? "" : spec.slice(bar + 1).trim();
  return fallback === "" ? ABSENT : header ? headerSafe(fallback) : fallback;
}

/** Fills the placeholders of one template; a field the submission lacks becomes its fallback, or nothing. */
function fill(template: string, values: TemplateValues, header: boolean): string {
  return template.replace(PLACEHOLDER, (_all, spec: string) => placeholder(spec, values, header)).replace(ABSENT_SPACE, "");
}

/** The owner's template as the person who submitted receives it. */
export interface RenderedConfirmation {
  subject: string;
  text: string;
}

/**
 * The subject (one line, at most 200 characters) and the text, filled in. A double opt-in link is added under
 * the text when the owner did not place it with `{{link}}`.
 */
export function renderConfirmation(template: { subject: string; text: string }, values: TemplateValues): RenderedConfirmation {
  const subject = cut(headerSafe(fill(template.subject, values, true)), MAX_SUBJECT).trimEnd();
  let text = fill(template.text.replace(/\r\n?/g, "\n"), values, false);
  if (values.link !== null && !/\{\{\s*link\s*\}\}/.test(template.text)) {
    text = `${text.trimEnd()}\n\n${messagesFor(values.language ?? DEFAULT_LANGUAGE).confirmByLink()}\n${values.link}\n`;
  }
  return { subject: subject || headerSafe(values.formName), text: text.endsWith("\n") ? text : `${text}\n` };
}

// Characters no one types into an address and that mail systems drop or map on the way: controls (NUL, BEL,
// NEL), format characters (the soft hyphen, zero-width joiners) and line separators.
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * The recipient: the named field's value when it is one valid address, else null. It is the address as it will
 * be delivered (NFKC, lowercased, its domain in the one form IDNA maps it to), so that the per-address limit
 * counts `bomb@ｘ.test` and `bomb@x.test` as the one inbox they reach; an address with an unseen character
 * (`b\u0007omb@x.test`, `bomb@x\u00ad.test`) is none.
 */
export function recipientOf(value: unknown): string | null {
  const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (typeof one !== "string") return null;
  const address = one.trim().normalize("NFKC").toLowerCase();
  if (UNSEEN.test(address) || address.length > 254 || !isEmail(address)) return null;
  const at = address.lastIndexOf("@");
  const ascii = domainToASCII(address.slice(at + 1));
  return ascii ? `${address.slice(0, at)}@${domainToUnicode(ascii)}` : null;
}
