import { DEFAULT_LANGUAGE, messagesFor, type Messages } from "../lib/i18n/index.ts";

/** Escapes text for HTML: submitted data and headers are untrusted wherever they are shown. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** The script of formsvc's own pages: the way back, and the form page's checks and posts without a reload. */
export const PAGE_SCRIPT = "/form-page.js";

/**
 * The policy of the pages formsvc shows a visitor: scripts only from formsvc itself (none inline), styles
 * inline (each page carries its own, the form's accent colour among them).
 */
export const VISITOR_PAGE_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; form-action 'self' https: http:";

function page(title: string, body: string, language: string = DEFAULT_LANGUAGE): string {
  return `<!doctype html>
<html lang="${escapeHtml(language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem; color: #222; overflow-wrap: anywhere; }
  h1 { font-size: 1.5rem; }
  a { color: #0b5cad; }
</style>
<script src="${PAGE_SCRIPT}" defer></script>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/**
 * A link back to the page the visitor came from, when that is an http(s) address. The page's script goes back in
 * the browser's history instead, which keeps what was typed (a Referer is often only the site's origin).
 */
function backLink(referer: string | null, t: Messages): string {
  if (!referer || !/^https?:\/\//i.test(referer)) return "";
  return `<p class="formsvc-back"><a href="${escapeHtml(referer)}">${escapeHtml(t.goBack())}</a></p>`;
}

/** The default thank-you page after a browser submission, in the visitor's language. */
export function thanksPage(referer: string | null, language: string = DEFAULT_LANGUAGE): string {
  const t = messagesFor(language);
  return page(t.thanksTitle(), `<h1>${escapeHtml(t.thanksHeading())}</h1>\n<p>${escapeHtml(t.thanksText())}</p>\n${backLink(referer, t)}`, language);
}

/** The fields at fault, as a list a visitor reads ("email: enter an email address."). */
function faultList(items: readonly { field?: string; message: string }[]): string {
  if (items.length === 0) return "";
  const entries = items.map((item) => `<li${item.field ? ` data-field="${escapeHtml(item.field)}"` : ""}>${escapeHtml(item.message)}</li>`);
  return `<ul>\n${entries.join("\n")}\n</ul>\n`;
}

/**
 * What a browser sees when its submission fails, in the visitor's language: what went wrong (a field's error
 * said once, in the list of the fields at fault), and the way back.
 */
export function errorPage(
  status: number,
  message: string,
  referer: string | null,
  items: readonly { field?: string; message: string }[] = [],
  language: string = DEFAULT_LANGUAGE,
): string {
  const t = messagesFor(language);
  const said = items.length > 0 ? t.errorSummary({ count: items.length }) : message;
  return page(
    t.errorTitle(),
    `<h1>${escapeHtml(t.errorHeading())}</h1>\n<p>${escapeHtml(said)}</p>\n${faultList(items)}<p><small>${escapeHtml(t.errorStatus({ status }))}</small></p>\n${backLink(referer, t)}`,
    language,
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
export function confirmationPage(title: string, message: string, language: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1>\n<p>${escapeHtml(message)}</p>`, language);
}
