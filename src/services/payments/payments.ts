// Payments with a submission (docs/api.md, "Payments"): a post to a form that takes a payment is stored awaiting it
// (not kept); the visitor is sent to a Checkout Session; Stripe's signed events then keep it through the one path
// that keeps a submission (keep.ts: the notification, webhooks and destinations go then, once), or mark it expired
// or refunded. Each event is handled once, in the write that applies it, whatever order they come in.
import { and, asc, eq, isNull, lt, sql } from "drizzle-orm";
import type { Db, Store } from "../../db/client.ts";
import { forms, paymentEvents, submissions, type FormRow, type SubmissionRow } from "../../db/schema.ts";
import { DAY_MS } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import { isEmail } from "../../lib/validate.ts";
import { rulesOf } from "../forms.ts";
import { pageOf } from "../form-page.ts";
import type { NotificationsService } from "../outbox/notifications.ts";
import type { WebhooksService } from "../outbox/webhooks.ts";
import { announce, keep, type KeepDeps, type Queued } from "../submissions/keep.ts";
import type { PublicUrls } from "../urls.ts";
import { paymentOf } from "./form-payment.ts";
import { createSession, retrieveSession, verifiedEvent, type Session, type StripeEvent, type StripeSettings } from "./stripe.ts";

/** No Stripe account configured: no form may take a payment, and Stripe is never asked (so it needs no address). */
export const NO_PAYMENTS: StripeSettings = { secretKey: null, webhookSecret: null, apiBase: "" };

/** An awaiting payment with no event for this long is asked for its session's state, once. */
export const STALE_AFTER_MS = DAY_MS;
/** Most stale payments one check asks about. */
const STALE_BATCH = 50;

/** What a post's payment page came to: its address, or null when the submission waits for no payment. */
export type Checkout = string | null;

/** The events that say a session was paid: at once, or later for a delayed method (a bank debit). */
const PAID_EVENTS = new Set(["checkout.session.completed", "checkout.session.async_payment_succeeded"]);
/** The events after which a session can no longer be paid. */
const LOST_EVENTS = new Set(["checkout.session.expired", "checkout.session.async_payment_failed"]);

/** The address a post's email field holds, for Stripe's receipt: a declared email field's, else the field `email`'s. */
function emailOf(form: FormRow, data: Record<string, unknown>): string | null {
  const name = rulesOf(form)?.find((rule) => rule.type === "email")?.name ?? "email";
  const value = data[name];
  return typeof value === "string" && value.length <= 254 && isEmail(value.trim()) ? value.trim() : null;
}

/** Payments: the Checkout Session of a post, the provider's events, and the check of stale sessions. */
export function paymentsService(
  store: Store,
  urls: PublicUrls,
  deps: { notifications: NotificationsService; webhooks?: WebhooksService },
  settings: StripeSettings,
) {
  const keeping: KeepDeps = { notifications: deps.notifications, outbox: deps.webhooks };

  /** Where the visitor comes back to, on the public address: the form's thank-you page, and its own page when cancelled. */
  function returns(form: FormRow): { successUrl: string; cancelUrl: string } {
    const base = urls.baseUrl().replace(/\/+$/, "");
    const page = pageOf(form).enabled;
    const successUrl = `${base}${page && rulesOf(form) ? `/f/${form.slug}/thanks` : "/thanks"}`;
    return { successUrl, cancelUrl: page ? `${base}/f/${form.slug}` : successUrl };
  }

  /** Keeps an unpaid submission now paid (or refunded already: its refund came first), in the caller's write. */
  async function settlePaid(tx: Db, row: SubmissionRow, session: Session, now: number): Promise<Queued | null> {
    if (row.paymentStatus === "paid" || row.paymentStatus === "refunded") return null;
    const intent = session.paymentIntent;
    const refundedFirst = intent
      ? (
          await tx
            .select({ id: paymentEvents.id })
            .from(paymentEvents)
            .where(and(eq(paymentEvents.type, "charge.refunded"), eq(paymentEvents.paymentIntent, intent)))
        ).length > 0
      : false;
    const paid = {
      unpaid: false,
      paymentStatus: refundedFirst ? "refunded" : "paid",
      paymentAmount: session.amount ?? row.paymentAmount,
      paymentCurrency: session.currency ?? row.paymentCurrency,
      paymentSession: session.id,
      paymentIntent: intent,
      // What the post asked of its notification stays held while something else still holds it back.
      held: row.isSpam || row.unconfirmed ? row.held : null,
    };
    await tx.update(submissions).set(paid).where(eq(submissions.id, row.id));
    const [form] = await tx.select().from(forms).where(eq(forms.id, row.formId));
    return form ? keep(tx, [{ form, before: row, after: { ...row, ...paid }, at: now }], keeping) : null;
  }

  /** Applies one verified event in the caller's write; null when it queued nothing to send. */
  async function apply(tx: Db, event: StripeEvent, now: number): Promise<Queued | null> {
    const session = event.session;
    if (session && (PAID_EVENTS.has(event.type) || LOST_EVENTS.has(event.type))) {
      const [row] = session.submissionId ? await tx.select().from(submissions).where(eq(submissions.id, session.submissionId)) : [];
      // Not ours, deleted, or never asked to pay (spam): nothing to do.
      if (!row || row.paymentStatus === null) return null;
      if (PAID_EVENTS.has(event.type) && (session.paymentStatus === "paid" || session.paymentStatus === "no_payment_required"))
        return settlePaid(tx, row, session, now);
      if (LOST_EVENTS.has(event.type) && row.paymentStatus === "awaiting") {
        await tx.update(submissions).set({ paymentStatus: "expired", paymentSession: session.id }).where(eq(submissions.id, row.id));
      } else if (row.paymentStatus === "awaiting") {
        // Completed but not paid yet (a delayed method): its payment is known, the money is not.
        await tx.update(submissions).set({ paymentSession: session.id, paymentIntent: session.paymentIntent }).where(eq(submissions.id, row.id));
      }
      return null;
    }
    if (event.refundedIntent) {
      // A refund of a payment not known yet is in payment_events with its intent: settlePaid finds it there.
      await tx
        .update(submissions)
        .set({ paymentStatus: "refunded" })
        .where(and(eq(submissions.paymentIntent, event.refundedIntent), eq(submissions.paymentStatus, "paid")));
    }
    return null;
  }

  return {
    /** Whether a form may take a payment: the server has Stripe's secret key. */
    configured: (): boolean => settings.secretKey !== null,

    /**
     * The payment page of a stored post, made once: a Checkout Session with the submission's id as its reference
     * and Idempotency-Key, its address kept on the submission, so that a repeated post is sent to the same page.
     * Null when the submission awaits no payment; `502 payment_unavailable` when Stripe refuses or cannot be
     * reached (the submission stays stored, awaiting payment).
     */
    async checkout(form: FormRow, submissionId: string): Promise<Checkout> {
      const payment = paymentOf(form);
      if (!payment) return null;
      const [row] = await store.db.select().from(submissions).where(eq(submissions.id, submissionId));
      if (row?.paymentStatus !== "awaiting") return null;
      if (row.paymentUrl) return row.paymentUrl;
      let session: Session;
      try {
        session = await createSession(settings, {
          submissionId: row.id,
          amount: row.paymentAmount!,
          currency: row.paymentCurrency!,
          name: payment.description ?? form.name,
          ...returns(form),
          customerEmail: emailOf(form, JSON.parse(row.data)),
        });
        if (!session.url) throw new Error(`Stripe's session ${session.id} has no url`);
      } catch (error) {
        throw new ApiError("payment_unavailable", "The payment page could not be opened just now; your submission is kept. Please try again in a moment.", {
          cause: error,
        });
      }
      await store.write((tx) => tx.update(submissions).set({ paymentSession: session.id, paymentUrl: session.url }).where(eq(submissions.id, row.id)));
      return session.url;
    },

    /**
     * Handles an event Stripe sent (`payload` as received, `signature` its Stripe-Signature header): a bad or old
     * signature is `400` and changes nothing; an event already handled, or of a type or submission formsvc does not
     * know, changes nothing either. Says whether it was new.
     */
    async receive(payload: string, signature: string | null, now: number): Promise<{ duplicate: boolean }> {
      if (!settings.webhookSecret)
        throw new ApiError("unavailable", "This server has no Stripe webhook secret (--stripe-webhook-secret): events cannot be verified.");
      const event = await verifiedEvent(settings, payload, signature, now);
      if (!event) {
        throw new ApiError("invalid_parameter", "Stripe-Signature does not match this event, or is older than 5 minutes.", { field: "Stripe-Signature" });
      }
      const outcome = await store.write(async (tx) => {
        const intent = event.refundedIntent ?? event.session?.paymentIntent ?? null;
        const fresh = await tx
          .insert(paymentEvents)
          .values({ id: event.id, type: event.type, paymentIntent: intent, receivedAt: now })
          .onConflictDoNothing()
          .returning({ id: paymentEvents.id });
        if (fresh.length === 0) return { duplicate: true, queued: null };
        return { duplicate: false, queued: await apply(tx, event, now) };
      });
      if (outcome.queued) announce(keeping, outcome.queued);
      return { duplicate: outcome.duplicate };
    },

    /**
     * Asks Stripe, once, the state of each payment awaiting for more than a day with no event, and settles it: paid
     * (kept), expired, or still open (left awaiting). One Stripe cannot answer now is asked again next time.
     * Returns how many were asked.
     */
    async settleStale(now: number): Promise<number> {
      const stale = await store.db
        .select({ id: submissions.id, session: submissions.paymentSession })
        .from(submissions)
        .where(and(sql`${submissions.paymentStatus} = 'awaiting'`, lt(submissions.createdAt, now - STALE_AFTER_MS), isNull(submissions.paymentCheckedAt)))
        .orderBy(asc(submissions.createdAt))
        .limit(STALE_BATCH);
      for (const { id, session: sessionId } of stale) {
        // A post whose session was never made can no longer be paid: it is expired.
        const session = sessionId ? await retrieveSession(settings, sessionId).catch(() => undefined) : null;
        if (session === undefined) continue;
        const queued = await store.write(async (tx) => {
          const [row] = await tx.select().from(submissions).where(eq(submissions.id, id));
          if (row?.paymentStatus !== "awaiting") return null;
          await tx.update(submissions).set({ paymentCheckedAt: now }).where(eq(submissions.id, id));
          if (session && session.paymentStatus === "paid") return settlePaid(tx, { ...row, paymentCheckedAt: now }, session, now);
          if (!session || session.status === "expired") await tx.update(submissions).set({ paymentStatus: "expired" }).where(eq(submissions.id, id));
          return null;
        });
        if (queued) announce(keeping, queued);
      }
      return stale.length;
    },
  };
}

export type PaymentsService = ReturnType<typeof paymentsService>;
