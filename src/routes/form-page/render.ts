// The form's own page and embed (docs/api.md, "The form's page"), made from its declared fields: each with its
// label, type, limits, hint and options, errors beside their fields and every value kept; the honeypot and the
// captcha. Plain HTML that works without a script; /form-page.js adds posting without a reload.
import type { FieldRule, Form } from "../../domain/types.ts";
import { escapeHtml, PAGE_SCRIPT } from "../../http/pages.ts";
import type { Messages } from "../../lib/i18n/index.ts";
import { UploadedFile } from "../../lib/files.ts";
import type { CaptchaWidget } from "./widgets.ts";

/** What the visitor sees of one post refused: each field's error by its name, and the errors of no field. */
export interface PageErrors {
  byField: Map<string, string>;
  /** Errors with no field on the page (the captcha's, a rate limit): shown above the form. */
  general: string[];
}

/** A form's page as one visitor sees it. */
export interface PageView {
  form: Form;
  t: Messages;
  language: string;
  errors?: PageErrors;
  /** The fields as the visitor posted them, shown again. */
  values?: Record<string, unknown> | null;
  /** Where the form posts: the page's own address on the page (so its post is known as the page's), submitUrl in an embed. */
  action: string;
  /** The form's captcha, when it shows one. */
  widget: CaptchaWidget | null;
}

const DEFAULT_ACCENT = "#0b5cad";

/** Relative luminance (WCAG 2) of a #rgb or #rrggbb colour. */
function luminance(hex: string): number {
  const digits = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c) : [hex.slice(1, 3), hex.slice(3, 5), hex.slice(5, 7)];
  const [r, g, b] = digits.map((d) => {
    const c = Number.parseInt(d, 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** White or near-black text on the accent colour, whichever reads better (any accent an owner picks stays legible). */
function onAccent(accent: string): string {
  const l = luminance(accent);
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.0625 ? "#ffffff" : "#111111";
}

/** The styles of the form, the same on the page and inside an embed's shadow root. */
export function formStyles(form: Form): string {
  const accent = form.page.accentColor ?? DEFAULT_ACCENT;
  return `.formsvc { --accent: ${accent}; --on-accent: ${onAccent(accent)}; font: 16px/1.5 system-ui, sans-serif; color: #1f2328; max-width: 36rem; margin: 0 auto; overflow-wrap: anywhere; text-align: start; }
.formsvc, .formsvc * { box-sizing: border-box; }
.formsvc [hidden] { display: none !important; }
.formsvc-logo { display: block; max-width: 100%; max-height: 4rem; height: auto; margin: 0 0 1rem; }
.formsvc h1, .formsvc h2 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .5rem; }
.formsvc-description { margin: 0 0 1.5rem; white-space: pre-line; }
.formsvc-field { margin: 0 0 1.25rem; }
.formsvc label { display: block; font-weight: 600; margin: 0 0 .25rem; }
.formsvc-check { display: flex; gap: .5rem; align-items: flex-start; }
.formsvc-check label { font-weight: 400; margin: 0; }
.formsvc-check input { margin-top: .35rem; }
.formsvc input:not([type=checkbox]), .formsvc select, .formsvc textarea { display: block; width: 100%; max-width: 100%; font: inherit; color: inherit; padding: .5rem .6rem; border: 1px solid #6e7781; border-radius: 6px; background: #fff; }
.formsvc textarea { min-height: 8rem; resize: vertical; }
.formsvc :focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.formsvc [aria-invalid=true] { border: 2px solid #b3261e; }
.formsvc-required { font-weight: 400; color: #57606a; font-size: .9rem; }
.formsvc-hint { color: #57606a; font-size: .9rem; margin: .25rem 0 0; }
.formsvc-error { color: #b3261e; font-weight: 600; margin: .25rem 0 0; }
.formsvc-summary { border: 2px solid #b3261e; border-radius: 6px; padding: .75rem 1rem; margin: 0 0 1.25rem; }
.formsvc-summary ul { margin: 0; padding-left: 1.25rem; }
.formsvc-hp { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
.formsvc button { font: inherit; font-weight: 600; padding: .6rem 1.4rem; border: 0; border-radius: 6px; background: var(--accent); color: var(--on-accent); cursor: pointer; }
.formsvc button:disabled { opacity: .75; cursor: progress; }
.formsvc-captcha { margin: 0 0 1.25rem; max-width: 100%; overflow: hidden; }
.formsvc-thanks { font-size: 1.15rem; white-space: pre-line; }`;
}

/** The page's own frame around the form (not in an embed, where the site is the frame). */
const PAGE_STYLES = `body { margin: 0; padding: 2rem 1rem; background: #f6f8fa; }
main.formsvc { background: #fff; padding: 1.5rem; border-radius: 8px; border: 1px solid #d0d7de; }
@media (max-width: 30rem) { body { padding: 1rem .5rem; } main.formsvc { padding: 1rem; } }`;

const CHECKED = new Set(["on", "true", "yes", "1"]);

/** A posted value as text for an input (a file is never shown again: a browser cannot be given one back). */
function textOf(value: unknown): string {
  if (value === undefined || value === null || value instanceof UploadedFile) return "";
  if (Array.isArray(value)) return value.length > 0 ? textOf(value[0]) : "";
  return typeof value === "string" ? value : String(value);
}

/** Whether a posted value selects `option` (a select may post several). */
const selects = (value: unknown, option: string) => (Array.isArray(value) ? value.includes(option) : value === option);

/** The attributes of a field's checks: what a browser and an assistive technology read of its rule. */
function checks(rule: FieldRule): string {
  return [
    rule.required ? " required" : "",
    rule.minLength !== undefined ? ` minlength="${rule.minLength}"` : "",
    rule.maxLength !== undefined ? ` maxlength="${rule.maxLength}"` : "",
    rule.min !== undefined ? ` min="${rule.min}"` : "",
    rule.max !== undefined ? ` max="${rule.max}"` : "",
    rule.pattern !== undefined ? ` pattern="${escapeHtml(rule.pattern)}"` : "",
  ].join("");
}

const AUTOCOMPLETE: Partial<Record<FieldRule["type"], string>> = { email: "email", tel: "tel", url: "url" };

/** One declared field: its label, its input with the value posted, its hint and its error, tied by ids. */
function fieldHtml(rule: FieldRule, index: number, view: PageView, first: boolean): string {
  const { t } = view;
  const id = `formsvc-f${index}`;
  const name = escapeHtml(rule.name);
  const value = view.values?.[rule.name];
  const error = view.errors?.byField.get(rule.name);
  const hint = rule.hint ? `<p class="formsvc-hint" id="${id}-hint">${escapeHtml(rule.hint)}</p>` : "";
  const errorLine = `<p class="formsvc-error" id="${id}-error"${error ? "" : " hidden"}>${escapeHtml(error ?? "")}</p>`;
  const described = [rule.hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  const aria = `${described ? ` aria-describedby="${described}"` : ""}${error ? ` aria-invalid="true"` : ""}${error && first ? " autofocus" : ""}`;
  const required = rule.required ? ` <span class="formsvc-required">(${escapeHtml(t.requiredMark())})</span>` : "";
  const label = `<label for="${id}">${escapeHtml(rule.label || rule.name)}${required}</label>`;
  const attrs = `id="${id}" name="${name}"${checks(rule)}${aria}`;
  let input: string;
  if (rule.type === "checkbox") {
    const on = value === true || (typeof value === "string" && CHECKED.has(value.toLowerCase()));
    return `<div class="formsvc-field" data-field="${name}"><div class="formsvc-check"><input type="checkbox" value="on" ${attrs}${on ? " checked" : ""}>${label}</div>${hint}${errorLine}</div>`;
  }
  if (rule.type === "textarea") input = `<textarea ${attrs}>${escapeHtml(textOf(value))}</textarea>`;
  else if (rule.type === "select") {
    const options = (rule.options ?? []).map((option) => `<option${selects(value, option) ? " selected" : ""}>${escapeHtml(option)}</option>`).join("");
    input = `<select ${attrs}><option value="">${escapeHtml(t.chooseOne())}</option>${options}</select>`;
  } else if (rule.type === "file") input = `<input type="file" ${attrs}>`;
  else {
    const extra = `${rule.type === "number" ? ' step="any" inputmode="decimal"' : ""}${AUTOCOMPLETE[rule.type] ? ` autocomplete="${AUTOCOMPLETE[rule.type]}"` : ""}`;
    input = `<input type="${rule.type}" ${attrs}${extra} value="${escapeHtml(textOf(value))}">`;
  }
  return `<div class="formsvc-field" data-field="${name}">${label}${input}${hint}${errorLine}</div>`;
}

/** The errors of no field, above the form (empty and hidden until there are some). */
function summaryHtml(view: PageView, focus: boolean): string {
  const general = view.errors?.general ?? [];
  const items = general.map((message) => `<li>${escapeHtml(message)}</li>`).join("");
  return `<div class="formsvc-summary" role="alert" tabindex="-1"${general.length ? (focus ? " autofocus" : "") : " hidden"}><ul>${items}</ul></div>`;
}

/**
 * The form itself, the same on the page and in an embed: heading, description, fields, honeypot, captcha and
 * button, and the place of the thank-you text. `heading` is h1 on the page, h2 inside a site's page.
 */
export function formHtml(view: PageView, heading: "h1" | "h2"): string {
  const { form, t, widget } = view;
  const page = form.page;
  const placed = form.fields.filter((rule) => view.errors?.byField.has(rule.name));
  const firstError = placed[0]?.name;
  const fields = form.fields.map((rule, i) => fieldHtml(rule, i, view, rule.name === firstError)).join("\n");
  const multipart = form.fields.some((rule) => rule.type === "file") ? ' enctype="multipart/form-data"' : "";
  const logo = page.logoUrl ? `<img class="formsvc-logo" src="${escapeHtml(page.logoUrl)}" alt="">` : "";
  const description = page.description ? `<p class="formsvc-description">${escapeHtml(page.description)}</p>` : "";
  const thanks = page.thankYouMessage ?? t.thanksMessage();
  return `${logo}<${heading}>${escapeHtml(page.title ?? form.name)}</${heading}>
${description}${summaryHtml(view, firstError === undefined)}
<form class="formsvc-form" action="${escapeHtml(view.action)}" method="post"${multipart} novalidate data-formsvc${form.redirectUrl ? " data-redirects" : ""} data-sending="${escapeHtml(t.sending())}" data-network-error="${escapeHtml(t.networkError())}">
<input type="hidden" name="_language" value="${escapeHtml(view.language)}">
${fields}
<div class="formsvc-hp" aria-hidden="true"><label for="formsvc-hp">${escapeHtml(t.honeypot())}</label><input id="formsvc-hp" name="_gotcha" tabindex="-1" autocomplete="off"></div>
${widget ? `<div class="formsvc-captcha">${widget.html}</div>\n` : ""}<button type="submit">${escapeHtml(page.submitLabel ?? t.send())}</button>
</form>
<p class="formsvc-thanks" role="status" tabindex="-1" hidden data-thanks="${escapeHtml(thanks)}"></p>`;
}

/** A whole HTML document around a body, with the form's styles, formsvc's script and the captcha's. */
function documentHtml(view: PageView, title: string, body: string): string {
  const scripts = (view.widget?.scripts ?? [])
    .map((s) => `<script src="${escapeHtml(s.src)}"${s.module ? ' type="module"' : ""} async defer></script>`)
    .join("\n");
  return `<!doctype html>
<html lang="${escapeHtml(view.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
${formStyles(view.form)}
${PAGE_STYLES}
</style>
<script src="${PAGE_SCRIPT}" defer></script>
${scripts}
</head>
<body>
<main class="formsvc">
${body}
</main>
</body>
</html>
`;
}

/** The form's page: the form, with the errors and values of a post refused when there was one. */
export function formPageHtml(view: PageView): string {
  return documentHtml(view, view.form.page.title ?? view.form.name, formHtml(view, "h1"));
}

/** The form's thank-you page: its branding and its thank-you text (the catalog's when it has none). */
export function formThanksHtml(view: PageView): string {
  const { form, t } = view;
  const logo = form.page.logoUrl ? `<img class="formsvc-logo" src="${escapeHtml(form.page.logoUrl)}" alt="">` : "";
  const text = form.page.thankYouMessage ?? t.thanksText();
  const body = `${logo}<h1>${escapeHtml(t.thanksHeading())}</h1>\n<p class="formsvc-thanks">${escapeHtml(text)}</p>`;
  return documentHtml({ ...view, widget: null }, `${t.thanksTitle()} · ${form.page.title ?? form.name}`, body);
}
