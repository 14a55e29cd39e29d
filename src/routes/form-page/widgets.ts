// The captcha a form's page and embed show: ALTCHA from formsvc itself, or a provider's widget with the form's
// site key, and what each needs the page's Content-Security-Policy to let in.
import type { Form } from "../../domain/types.ts";
import { escapeHtml } from "../../http/pages.ts";
import type { Messages } from "../../lib/i18n/index.ts";

/** Each provider's script, the element its widget reads the site key from, and the origins it loads from. */
const PROVIDER_WIDGETS = {
  recaptcha: { script: "https://www.google.com/recaptcha/api.js", class: "g-recaptcha", origins: ["https://www.google.com", "https://www.gstatic.com"] },
  hcaptcha: { script: "https://js.hcaptcha.com/1/api.js", class: "h-captcha", origins: ["https://js.hcaptcha.com", "https://*.hcaptcha.com"] },
  turnstile: { script: "https://challenges.cloudflare.com/turnstile/v0/api.js", class: "cf-turnstile", origins: ["https://challenges.cloudflare.com"] },
} as const;

/** The captcha of a page: the widget's markup and the scripts it needs (absolute addresses). */
export interface CaptchaWidget {
  html: string;
  scripts: { src: string; module: boolean }[];
  /** The origins the page's policy must let scripts, frames and requests come from. */
  origins: string[];
}

/** The form's captcha as a widget; null when it has none, or a provider's without a site key (it cannot render). */
export function captchaWidget(form: Form, origin: string, t: Messages): CaptchaWidget | null {
  const captcha = form.captcha;
  if (!captcha) return null;
  if (captcha.provider === "altcha") {
    // The widget's own words, in the visitor's language (its `strings` attribute).
    const strings = JSON.stringify({
      label: t.captchaLabel(),
      verifying: t.captchaVerifying(),
      verified: t.captchaVerified(),
      error: t.captchaError(),
      expired: t.captchaExpired(),
      waitAlert: t.captchaWait(),
    });
    return {
      html: `<altcha-widget challenge="${escapeHtml(`${form.submitUrl}/altcha`)}" auto="onload" strings="${escapeHtml(strings)}"></altcha-widget>`,
      scripts: [{ src: `${origin}/altcha.js`, module: true }],
      origins: [],
    };
  }
  if (!("siteKey" in captcha) || !captcha.siteKey) return null;
  const widget = PROVIDER_WIDGETS[captcha.provider];
  return {
    html: `<div class="${widget.class}" data-sitekey="${escapeHtml(captcha.siteKey)}"></div>`,
    scripts: [{ src: widget.script, module: false }],
    origins: [...widget.origins],
  };
}

/** The Content-Security-Policy of a form's page: formsvc's own pages' policy, opened to its captcha's origins. */
export function pagePolicy(widget: CaptchaWidget | null): string {
  const extra = widget && widget.origins.length > 0 ? ` ${widget.origins.join(" ")}` : "";
  return [
    "default-src 'self'",
    `script-src 'self'${extra}`,
    `frame-src 'self'${extra}`,
    `connect-src 'self'${extra}`,
    // The ALTCHA widget solves its challenge in a worker it makes from a blob.
    "worker-src 'self' blob:",
    `style-src 'self' 'unsafe-inline'${extra}`,
    "img-src 'self' https: http: data:",
    "base-uri 'none'",
    "form-action 'self' https: http:",
    // Framed by no other site (a page posing as theirs, or theirs clicked through it): the embed is the way onto
    // another site. Its own origin may: the dashboard's preview frames it.
    "frame-ancestors 'self'",
  ].join("; ");
}
