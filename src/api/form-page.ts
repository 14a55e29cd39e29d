import { clientScript, embed, formPage, formThanks } from "../routes/form-page/routes.ts";
import { operation, type Operation } from "./operation.ts";

const TAG = "Form page";
const HTML = { "text/html": "The page." };

/**
 * The form's own page, its thank-you page, its embed and their script (docs/api.md, "The form's page"): public,
 * for a browser; the page and the embed only for a form whose page is enabled and that declares its fields.
 */
export const formPageOperations: Operation[] = [
  operation({
    method: "GET",
    path: "/f/{slug}",
    operationId: "formPage",
    summary: "The form's page",
    description:
      "For a browser (Accept without application/json): the page made from the form's declared fields, in the visitor's language (?_language=, else page.language, else Accept-Language, else English). Each load counts a view, once per address and day. A form whose page is off or that declares no fields answers 405 with a page that says this is a submission address. A client asking for JSON (Accept: application/json) gets the API's error instead: 405 method_not_allowed, or 404 form_not_found.",
    tag: TAG,
    scope: "public",
    ok: { status: 200, description: "The form's page.", media: HTML },
    errors: [404, 405],
    handler: formPage,
  }),
  operation({
    method: "GET",
    path: "/f/{slug}/thanks",
    operationId: "formThanks",
    summary: "The form's thank-you page",
    description: "Where a browser goes after a post from the form's page when the form has no redirectUrl: its thank-you message, in the visitor's language.",
    tag: TAG,
    scope: "public",
    ok: { status: 200, description: "The thank-you page.", media: HTML },
    handler: formThanks,
  }),
  operation({
    method: "GET",
    path: "/f/{slug}/embed",
    operationId: "formEmbed",
    summary: "The form, for /embed.js",
    description:
      "What /embed.js puts in a site's page: the form's markup and styles and the captcha's scripts, in the visitor's language, with the CORS headers the form's origins allow. Each load counts a view, once per visitor and day. 404 for a form whose page is off.",
    tag: TAG,
    scope: "public",
    ok: {
      status: 200,
      description: "The form to embed.",
      schema: "FormEmbed",
      define: (z) =>
        z.object({
          language: z.string().describe("The catalog the form speaks (en, de, fr, ...)."),
          html: z.string().describe("The form's markup, for a shadow root."),
          css: z.string().describe("Its styles."),
          scripts: z.array(z.object({ src: z.string(), module: z.boolean() })).describe("The captcha's scripts, for the site's page."),
        }),
    },
    handler: embed,
  }),
  ...["/embed.js", "/form-page.js"].map((path, i) =>
    operation({
      method: "GET",
      path,
      operationId: i === 0 ? "embedScript" : "formPageScript",
      summary: i === 0 ? "The embed's script" : "The form page's script",
      description:
        'One script: as /embed.js it puts each <div data-formsvc="SLUG"></div> of a site\'s page in an open shadow root (<script src="/embed.js" async></script>); as /form-page.js it makes formsvc\'s own pages post without a reload. CORS open, cached for an hour.',
      tag: TAG,
      scope: "public",
      ok: { status: 200, description: "JavaScript.", media: { "text/javascript": "The script." } },
      handler: clientScript,
    }),
  ),
];
