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

/** What a browser sees when its submission fails: what went wrong, and the way back. */
export function errorPage(status: number, message: string, referer: string | null): string {
  return page(
    "Submission not sent",
    `<h1>Your submission was not sent</h1>\n<p>${escapeHtml(message)}</p>\n<p><small>Error ${status}</small></p>\n${backLink(referer)}`,
  );
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
