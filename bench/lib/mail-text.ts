// What a person would have typed into a contact form, from a raw email of the SpamAssassin corpus: the sender's
// address, the subject, and the text of the message (its text parts decoded from quoted-printable or base64;
// HTML parts kept as text, the filter ignores their tags). MIME headers and boundaries are not part of it.

/** A submission's fields made from one raw message. */
export interface MailFields {
  email: string;
  subject: string;
  message: string;
}

function split(raw: string): { head: string; body: string } {
  const cut = raw.search(/\r?\n\r?\n/);
  return cut === -1 ? { head: raw, body: "" } : { head: raw.slice(0, cut), body: raw.slice(cut).replace(/^\r?\n\r?\n/, "") };
}

function header(head: string, name: string): string {
  const match = head.match(new RegExp(`^${name}:[ \\t]*(.*(?:\\r?\\n[ \\t].*)*)`, "im"));
  return match?.[1]?.replace(/\s+/g, " ").trim() ?? "";
}

function decode(body: string, encoding: string): string {
  const kind = encoding.toLowerCase();
  if (kind === "quoted-printable") {
    return body.replace(/=\r?\n/g, "").replace(/=([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  }
  if (kind === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("latin1");
  return body;
}

/** The decoded text parts of a MIME entity, at most `depth` levels of multipart deep. */
function textOf(head: string, body: string, depth = 0): string[] {
  const type = header(head, "Content-Type").toLowerCase();
  const boundary = header(head, "Content-Type").match(/boundary="?([^";]+)"?/i)?.[1];
  if (type.startsWith("multipart/") && boundary && depth < 4) {
    const parts = body.split(`--${boundary}`).slice(1);
    return parts.flatMap((part) => {
      const entity = split(part.replace(/^\r?\n/, ""));
      return textOf(entity.head, entity.body, depth + 1);
    });
  }
  if (type !== "" && !type.startsWith("text/")) return [];
  return [decode(body, header(head, "Content-Transfer-Encoding"))];
}

/** The form fields of one raw message. */
export function mailFields(raw: string): MailFields {
  const { head, body } = split(raw);
  const from = header(head, "From");
  return {
    email: from.match(/[^\s<>"()]+@[^\s<>"()]+/)?.[0] ?? "",
    subject: header(head, "Subject"),
    message: textOf(head, body).join("\n").slice(0, 20_000),
  };
}
