import { altchaChallenge, altchaWidget } from "../routes/altcha.ts";
import { preflight, submit } from "../routes/submit.ts";
import { operation, type Operation } from "./operation.ts";

/** The public endpoint, at both of its addresses, and its CORS preflight (docs/api.md, "Public submission endpoint"): no key, the form's own rules. */
export const publicOperations: Operation[] = ["/api/f/{slug}", "/f/{slug}"].flatMap((path, i) => [
  operation({
    method: "POST",
    path,
    operationId: i === 0 ? "submit" : "submitShort",
    summary: i === 0 ? "Submit to a form" : "Submit to a form (the address submitUrl shows)",
    description:
      "JSON, urlencoded or multipart. Special fields (_next, _subject, _replyto, _cc, _gotcha and the captcha tokens, altcha among them) are removed before storing. Checks in order: form (404), active (403), origin (403), rate limit (429), size (413), parse (400/415), fields (400), captcha (400); then the spam rules and the account's learning filter, which keep a post as spam rather than refuse it. A browser (no Accept: application/json) gets a 303, or an HTML page for an error. A form that takes a payment stores the post awaiting it and sends the browser to Stripe's payment page (paymentUrl in JSON); 502 payment_unavailable when Stripe cannot be asked, the post stored all the same.",
    tag: "Public submission",
    scope: "public",
    ok: { status: 200, description: "Stored (asked with Accept: application/json).", schema: "SubmitSuccess" },
    errors: [502],
    handler: submit,
  }),
  operation({
    method: "OPTIONS",
    path,
    operationId: i === 0 ? "submitPreflight" : "submitPreflightShort",
    summary: "CORS preflight",
    tag: "Public submission",
    scope: "public",
    ok: { status: 204, description: "Allowed: Access-Control-Allow-Origin is the request's origin (any when the form has no allowedDomains)." },
    handler: preflight,
  }),
  operation({
    method: "GET",
    path: `${path}/altcha`,
    operationId: i === 0 ? "altchaChallenge" : "altchaChallengeShort",
    summary: "A new ALTCHA challenge for the form",
    description:
      'For a form with captcha {provider: "altcha"}: a new challenge each time, expiring in 20 minutes, with the CORS headers the form\'s origins allow. The widget (/altcha.js) fetches it, solves it and puts the solution in the altcha field; each solution is accepted once. 404 for a form without the ALTCHA captcha; 429 past --rate-limit challenges a minute from one address (a bucket apart from that of the posts).',
    tag: "Public submission",
    scope: "public",
    ok: { status: 200, description: "The challenge (Cache-Control: no-store).", schema: "AltchaChallenge" },
    errors: [429],
    handler: altchaChallenge,
  }),
]);

/** The ALTCHA widget's script, served from inside formsvc so that a page with the captcha needs no CDN. */
export const altchaWidgetOperation: Operation = operation({
  method: "GET",
  path: "/altcha.js",
  operationId: "altchaWidget",
  summary: "The ALTCHA widget's script",
  description: 'The altcha web component, served from inside formsvc (no CDN): <script async defer src="/altcha.js" type="module"></script>.',
  tag: "Public submission",
  scope: "public",
  ok: { status: 200, description: "JavaScript (CORS open, cached for a day).", media: { "text/javascript": "The widget's script." } },
  handler: altchaWidget,
});
