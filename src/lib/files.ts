// Uploaded files as submissions show them, and their names made safe wherever a name becomes a file name.

/** A file part of a post, held until the submission (and the file with it) is stored. */
export class UploadedFile {
  /** The name as the browser sent it, less the bidirectional marks that could make it read as another. */
  readonly name: string;

  constructor(
    name: string,
    readonly type: string,
    readonly content: Uint8Array,
  ) {
    this.name = name.replace(BIDI, "");
  }

  get size(): number {
    return this.content.byteLength;
  }
}

/** A file in a submission's data (docs/api.md, "Files"): `{"file": "fil_…", "name", "type", "size"}`. */
export interface FileRef {
  file: string;
  name: string;
  type: string;
  size: number;
}

/** True for a file object as formsvc stores it in a submission's data. */
export function isFileRef(value: unknown): value is FileRef {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return typeof v.file === "string" && v.file.startsWith("fil_") && typeof v.name === "string" && typeof v.type === "string" && typeof v.size === "number";
}

/** Every file object of a submission's data, field by field (a field holds one or an array of several). */
export function fileRefsOf(data: Record<string, unknown>): { field: string; ref: FileRef }[] {
  const found: { field: string; ref: FileRef }[] = [];
  for (const [field, value] of Object.entries(data)) {
    for (const item of Array.isArray(value) ? value : [value]) if (isFileRef(item)) found.push({ field, ref: item });
  }
  return found;
}

/** Where the owner downloads a file: under its submission, in the management API. */
export const filePath = (formId: string, submissionId: string, fileId: string) => `/api/forms/${formId}/submissions/${submissionId}/files/${fileId}`;

// The bidirectional marks and overrides: "invoice\u202Efdp.exe" shows as "invoiceexe.pdf".
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A field name with its bidirectional marks made visible as `<U+202E>`: kept apart from the name it would
 * otherwise pass for (two names must not fold into one), and shown for what it is in lists and exports.
 */
export const visibleBidi = (name: string) => name.replace(BIDI, (mark) => `<U+${mark.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}>`);

const MAX_NAME = 150;
// Controls (NUL among them), and the bidirectional marks that make "evil‮fdp.exe" read as "evilexe.pdf".
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
// What Windows, macOS or a shell reads as more than a name.
const RESERVED = /[/\\:*?"<>|]/g;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * A file name that is only a name: no path (`../` and `\` become `_`), no controls or NUL, no bidirectional
 * override, no leading dots, at most 150 characters with the extension kept; "file" when nothing is left.
 */
export function safeFileName(name: string): string {
  let safe = name.normalize("NFC").replace(UNSAFE, "").replace(RESERVED, "_").trim();
  safe = safe.replace(/^[.\s]+/, "").replace(/[.\s]+$/, "");
  if (WINDOWS_DEVICE.test(safe)) safe = `_${safe}`;
  const chars = Array.from(safe);
  if (chars.length > MAX_NAME) {
    const dot = safe.lastIndexOf(".");
    const extension = dot > 0 && safe.length - dot <= 16 ? Array.from(safe.slice(dot)) : [];
    safe =
      chars
        .slice(0, MAX_NAME - extension.length)
        .join("")
        .trimEnd() + extension.join("");
  }
  return safe === "" ? "file" : safe;
}

/**
 * `Content-Disposition: attachment` for a download (RFC 6266): `filename` an ASCII stand-in for old clients,
 * `filename*` the safe name itself, percent-encoded UTF-8 (RFC 8187).
 */
export function attachmentHeader(name: string): string {
  const safe = safeFileName(name);
  const ascii = safe.replace(/[^\x20-\x7e]/g, "_").replace(/[%;]/g, "_");
  const encoded = encodeURIComponent(safe).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
