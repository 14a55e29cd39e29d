import type { Handler } from "../http/context.ts";
import { confirmationPage } from "../http/pages.ts";
import { html } from "../http/respond.ts";
import { messagesFor, pickLanguage } from "../lib/i18n/index.ts";
import type { Router } from "../http/router.ts";
import type { OptInOutcome } from "../services/submissions/opt-in.ts";

// Calm words for a person who clicked a link in an email, in their language: what happened, and nothing to do
// but close the page.
type PageWords =
  | "confirmedTitle"
  | "confirmedText"
  | "alreadyConfirmedTitle"
  | "alreadyConfirmedText"
  | "linkExpiredTitle"
  | "linkExpiredText"
  | "linkInvalidTitle"
  | "linkInvalidText";
const ANSWERS: Record<OptInOutcome, { status: number; title: PageWords; text: PageWords }> = {
  confirmed: { status: 200, title: "confirmedTitle", text: "confirmedText" },
  already_confirmed: { status: 200, title: "alreadyConfirmedTitle", text: "alreadyConfirmedText" },
  expired: { status: 410, title: "linkExpiredTitle", text: "linkExpiredText" },
  invalid: { status: 404, title: "linkInvalidTitle", text: "linkInvalidText" },
};

/** The double opt-in link (docs/api.md, "Confirmation email and double opt-in"): opening it (a GET, no button to press) confirms the submission it names. */
export function confirmRoutes(router: Router<Handler>): void {
  router.on("GET", "/confirm/:token", async (ctx) => {
    const outcome = await ctx.services.optIn.confirm(ctx.params.token!, ctx.ip, Date.now());
    const answer = ANSWERS[outcome];
    // The email's language rides on the link (`_language`); else the browser of whoever opened it says.
    const language = pickLanguage({ field: ctx.url.searchParams.get("_language"), acceptLanguage: ctx.request.headers.get("accept-language") });
    const t = messagesFor(language);
    // Never cached, never indexed: the link is a one-time credential.
    return html(answer.status, confirmationPage(t[answer.title](), t[answer.text](), language), {
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
    });
  });
}
