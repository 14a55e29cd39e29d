// What goes into a notification email, built from untrusted submitted data: plain text only, and nothing
// that could become a header or a line of its own.
import { ownerText } from "./defang.ts";
import { isFileRef } from "./files.ts";
import { isEmail } from "./validate.ts";

export const MAX_SUBJECT = 200;

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators that some clients break lines on.
const CONTROL_RUN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** One line of text: every run of control characters (CR and LF among them) becomes one space. */
export function headerSafe(text: string): string {
  return text.replace(CONTROL_RUN, " ").trim();
}

/** The subject: `_subject` when it is a non-empty string (one line, at most 200 characters), else "New submission: <form name>". */
export function notificationSubject(requested: unknown, formName: string): string {
  const wanted = typeof requested === "string" ? headerSafe(requested) : "";
  const subject = wanted || `New submission: ${headerSafe(formName)}`;
  // Cut by code points, so that a character outside the BMP is never split in half.
  const chars = Array.from(subject);
  return chars.length > MAX_SUBJECT ? chars.slice(0, MAX_SUBJECT).join("").trimEnd() : subject;
}

/** The Reply-To address: `_replyto` when it is one valid email address, else null (never an error for the submitter). */
export function notificationReplyTo(requested: unknown): string | null {
  if (typeof requested !== "string") return null;
  const address = requested.trim();
  return address.length <= 254 && isEmail(address) ? address : null;
}

/** A file named, never attached: its name, type and size; the owner downloads it with the CLI or the API. */
const fileText = (file: { name: string; type: string; size: number }) => `${headerSafe(file.name)} (file, ${file.type}, ${file.size} bytes)`;

/** A submitted value as text: arrays joined with commas, files by name, objects as JSON, nothing for null. */
export function valueText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "string") return value;
  if (isFileRef(value)) return fileText(value);
  if (Array.isArray(value) && value.some(isFileRef)) return value.map((v) => (isFileRef(v) ? fileText(v) : valueText(v))).join(", ");
  if (Array.isArray(value)) return value.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(", ");
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

// What a text body may not carry: controls but tab and line feed (a CR is dropped, CRLF becomes LF).
const BODY_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g;

/** A value's lines, continuation lines indented, so that a value can never pass for a field or a footer line. */
function bodyValue(text: string): string {
  return text.replace(/\r\n?/g, "\n").replace(BODY_UNSAFE, "").split("\n").join("\n  ");
}

/** What the body of a notification tells. */
export interface NotificationContent {
  formName: string;
  formSlug: string;
  submissionId: string;
  /** ISO 8601 */
  receivedAt: string;
  data: Record<string, unknown>;
  /** The submission's page in the dashboard, when the server knows its public address. */
  link?: string | null;
}

/**
 * The plain-text body: one `name: value` line per field (ownerText), then the submission's id and time and how to see it:
 * its page in the dashboard when the server knows its public address, else the CLI's commands.
 */
export function notificationText(content: NotificationContent): string {
  // Submitted names and values as every owner channel shows them: links defanged, email addresses as given.
  const fields = Object.entries(content.data).map(([name, value]) => `${headerSafe(ownerText(name))}: ${bodyValue(ownerText(valueText(value)))}`);
  return [
    `New submission to ${headerSafe(content.formName)}:`,
    "",
    ...fields,
    "",
    `Submission: ${content.submissionId}`,
    `Received: ${content.receivedAt}`,
    ...(content.link
      ? [`Open it in the dashboard: ${content.link}`]
      : [
          `See it with: formsvc submissions get ${content.formSlug} ${content.submissionId}`,
          ...(Object.values(content.data).some((v) => isFileRef(v) || (Array.isArray(v) && v.some(isFileRef)))
            ? [`Download its files with: formsvc submissions files ${content.formSlug} ${content.submissionId}`]
            : []),
        ]),
    "",
  ].join("\n");
}

/** A mailbox as a From header takes it. */
export interface Mailbox {
  name: string;
  address: string;
}

/** Parses `Name <you@example.com>` or `you@example.com`; null when it is neither. */
export function parseMailbox(text: string): Mailbox | null {
  if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text)) return null;
  const trimmed = text.trim();
  const named = /^(.*?)\s*<([^<>]+)>$/.exec(trimmed);
  const name = named ? named[1]!.replace(/^"(.*)"$/, "$1").trim() : "";
  const address = named ? named[2]!.trim() : trimmed;
  return isEmail(address) && address.length <= 254 ? { name, address } : null;
}
