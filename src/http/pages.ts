/** Escapes text for HTML: submitted data and headers are untrusted wherever they are shown. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #222; }
  h1 { font-size: 1.5rem; }
  a { color: #0b5cad; }
</style>
</head>
<body>
${body}
</body>
</html>
`;
}

/** A link back to the page the visitor came from, when that is an http(s) address. */
function backLink(referer: string | null): string {
  if (!referer || !/^https?:\/\//i.test(referer)) return "";
  return `<p><a href="${escapeHtml(referer)}">Go back</a></p>`;
}

/** The default thank-you page after a browser submission. */
export function thanksPage(referer: string | null): string {
  return page("Thank you", `<h1>Thank you!</h1>\n<p>Your submission has been received.</p>\n${backLink(referer)}`);
}

/** The fields at fault, as a list a visitor reads ("email: Enter an email address."). */
function faultList(items: readonly { field?: string; message: string }[]): string {
  if (items.length === 0) return "";
  const entries = items.map((item) => `<li${item.field ? ` data-field="${escapeHtml(item.field)}"` : ""}>${escapeHtml(item.message)}</li>`);
  return `<ul>\n${entries.join("\n")}\n</ul>\n`;
}

/** What a browser sees when its submission fails: what went wrong (each field at fault, when several are), and the way back. */
export function errorPage(status: number, message: string, referer: string | null, items: readonly { field?: string; message: string }[] = []): string {
  return page(
    "Submission not sent",
    `<h1>Your submission was not sent</h1>\n<p>${escapeHtml(message)}</p>\n${faultList(items)}<p><small>Error ${status}</small></p>\n${backLink(referer)}`,
  );
}

/** What htmx swaps into the page when a post fails: the message and each field at fault, nothing around them. */
export function errorFragment(message: string, items: readonly { field?: string; message: string }[] = []): string {
  return `<div class="formsvc-errors" role="alert">\n<p>${escapeHtml(message)}</p>\n${faultList(items)}</div>\n`;
}

/** What htmx swaps into the page when a post is taken: the thank-you message. */
export function thanksFragment(message: string): string {
  return `<div class="formsvc-thanks" role="status">\n<p>${escapeHtml(message)}</p>\n</div>\n`;
}

/** What a browser sees when it opens a form's submission address instead of posting to it. */
export function endpointPage(): string {
  return page(
    "Form endpoint",
    "<h1>This is a form's submission address</h1>\n<p>It takes submissions posted by a form or a script (POST); there is nothing to see here.</p>",
  );
}

/** The page a double opt-in link opens: confirmed, already confirmed, expired or not valid. */
export function confirmationPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`);
}
