import { preflight, submit } from "../routes/submit.ts";
import { operation, type Operation } from "./operation.ts";

/** The public endpoint, at both of its addresses, and its CORS preflight (contract §6): no key, the form's own rules. */
export const publicOperations: Operation[] = ["/api/f/{slug}", "/f/{slug}"].flatMap((path, i) => [
  operation({
    method: "POST",
    path,
    operationId: i === 0 ? "submit" : "submitShort",
    summary: i === 0 ? "Submit to a form" : "Submit to a form (the address submitUrl shows)",
    description:
      "JSON, urlencoded or multipart. Special fields (_next, _subject, _replyto, _gotcha and the captcha tokens) are removed before storing. Checks in order: form (404), active (403), origin (403), rate limit (429), size (413), parse (400/415), captcha (400). A browser (no Accept: application/json) gets a 303, or an HTML page for an error.",
    tag: "Public submission",
    scope: "public",
    ok: { status: 200, description: "Stored (asked with Accept: application/json).", schema: "SubmitSuccess" },
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
]);
