import type { Handler } from "../http/context.ts";
import { confirmationPage } from "../http/pages.ts";
import { html } from "../http/respond.ts";
import type { Router } from "../http/router.ts";
import type { OptInOutcome } from "../services/submissions/opt-in.ts";

// Calm words for a person who clicked a link in an email: what happened, and nothing to do but close the page.
const ANSWERS: Record<OptInOutcome, { status: number; title: string; message: string }> = {
  confirmed: { status: 200, title: "Confirmed", message: "Thank you: your address is confirmed. You can close this page." },
  already_confirmed: { status: 200, title: "Already confirmed", message: "This address was already confirmed. There is nothing more to do." },
  expired: {
    status: 410,
    title: "Link expired",
    message: "This confirmation link has expired, so nothing was confirmed. If you still want to, send the form again.",
  },
  invalid: {
    status: 404,
    title: "Link not valid",
    message: "This confirmation link is not valid, so nothing was confirmed. Check that the whole link was copied from the email.",
  },
};

/** The double opt-in link (docs/api.md, "Confirmation email and double opt-in"): opening it (a GET, no button to press) confirms the submission it names. */
export function confirmRoutes(router: Router<Handler>): void {
  router.on("GET", "/confirm/:token", async (ctx) => {
    const outcome = await ctx.services.optIn.confirm(ctx.params.token!, ctx.ip, Date.now());
    const answer = ANSWERS[outcome];
    // Never cached, never indexed: the link is a one-time credential.
    return html(answer.status, confirmationPage(answer.title, answer.message), {
      "Cache-Control": "no-store",
      "X-Robots-Tag": "noindex",
      "Referrer-Policy": "no-referrer",
    });
  });
}
