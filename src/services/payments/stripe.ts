// Stripe, the payment provider (docs/api.md, "Payments"): a Checkout Session made and asked for through the official
// `stripe` package, and the events Stripe sends verified by their `Stripe-Signature` (its own check) and read. The
// package is loaded on first use (a post to, or an event for, a form that takes a payment): serve starts without it.

/** The server's Stripe account (`--stripe-secret-key`, `--stripe-webhook-secret`, `--stripe-api-base`): write-only. */
export interface StripeSettings {
  secretKey: string | null;
  webhookSecret: string | null;
  apiBase: string;
}

/** How old a signed event may be: Stripe's own default, five minutes. */
const SIGNATURE_TOLERANCE_S = 300;
/**
 * How long one request to Stripe may take before it is tried once more (same Idempotency-Key) and then the post
 * is answered 502 (and kept): a visitor waits at most about twice this for the payment page.
 */
const TIMEOUT_MS = 6_000;

/** What a Checkout Session is made of: one line, the submission as its reference, and where the visitor goes after. */
export interface CheckoutRequest {
  submissionId: string;
  amount: number;
  currency: string;
  name: string;
  successUrl: string;
  cancelUrl: string;
  customerEmail: string | null;
}

/** A Checkout Session as formsvc reads it. */
export interface Session {
  id: string;
  url: string | null;
  /** open | complete | expired */
  status: string;
  /** paid | unpaid | no_payment_required */
  paymentStatus: string;
  submissionId: string | null;
  paymentIntent: string | null;
  amount: number | null;
  currency: string | null;
}

type StripeClient = InstanceType<typeof import("stripe").default>;
type StripeSession = Awaited<ReturnType<StripeClient["checkout"]["sessions"]["retrieve"]>>;

const sessionOf = (body: StripeSession): Session => {
  const intent = body.payment_intent;
  return {
    id: body.id,
    url: body.url ?? null,
    status: body.status ?? "",
    paymentStatus: body.payment_status,
    submissionId: body.client_reference_id ?? body.metadata?.submission_id ?? null,
    // Expanded or not, a payment intent is named by its id.
    paymentIntent: typeof intent === "string" ? intent : (intent?.id ?? null),
    amount: body.amount_total ?? null,
    currency: body.currency ?? null,
  };
};

// One client per account and address, made on first use; the package is loaded then, not when serve starts.
const clients = new Map<string, Promise<StripeClient>>();

/** The Stripe client of `settings` (which has a secret key), sending to `--stripe-api-base`. */
function client(settings: StripeSettings & { secretKey: string }): Promise<StripeClient> {
  const key = `${settings.secretKey} ${settings.apiBase}`;
  let made = clients.get(key);
  if (!made) {
    made = import("stripe").then(({ default: Stripe }) => {
      const base = new URL(settings.apiBase);
      const http = base.protocol === "http:";
      return new Stripe(settings.secretKey, {
        protocol: http ? "http" : "https",
        host: base.hostname,
        port: base.port || (http ? 80 : 443),
        // A retry carries the same Idempotency-Key, so a retried session is the same session.
        maxNetworkRetries: 1,
        timeout: TIMEOUT_MS,
        httpClient: Stripe.createFetchHttpClient(),
        appInfo: { name: "formsvc" },
      });
    });
    clients.set(key, made);
  }
  return made;
}

/** Creates the Checkout Session of a submission; the submission's id is its Idempotency-Key, so a retry makes no second one. */
export async function createSession(settings: StripeSettings, request: CheckoutRequest): Promise<Session> {
  if (!settings.secretKey) throw new Error("no Stripe secret key is configured (--stripe-secret-key)");
  const stripe = await client({ ...settings, secretKey: settings.secretKey });
  const session = await stripe.checkout.sessions.create(
    {
      mode: "payment",
      line_items: [{ price_data: { currency: request.currency, unit_amount: request.amount, product_data: { name: request.name } }, quantity: 1 }],
      client_reference_id: request.submissionId,
      metadata: { submission_id: request.submissionId },
      success_url: request.successUrl,
      cancel_url: request.cancelUrl,
      ...(request.customerEmail ? { customer_email: request.customerEmail } : {}),
    },
    { idempotencyKey: request.submissionId },
  );
  return sessionOf(session);
}

/** A Checkout Session's state as Stripe has it now. */
export async function retrieveSession(settings: StripeSettings, sessionId: string): Promise<Session> {
  if (!settings.secretKey) throw new Error("no Stripe secret key is configured (--stripe-secret-key)");
  return sessionOf(await (await client({ ...settings, secretKey: settings.secretKey })).checkout.sessions.retrieve(sessionId));
}

/** An event Stripe sent, read for what formsvc does with it. */
export interface StripeEvent {
  id: string;
  type: string;
  /** The Checkout Session, for the session's events. */
  session: Session | null;
  /** The payment a refund names, for charge.refunded. */
  refundedIntent: string | null;
}

/**
 * Checks `Stripe-Signature` as Stripe's package does (`t=…,v1=…`: HMAC-SHA256 of `t.payload` with the webhook secret,
 * any v1 of several matching, `t` at most SIGNATURE_TOLERANCE_S before `now`) and reads the event; null when it fails.
 */
export async function verifiedEvent(settings: StripeSettings, payload: string, header: string | null, now: number): Promise<StripeEvent | null> {
  if (!settings.webhookSecret || !header) return null;
  // A time ahead of ours by more than the tolerance is refused too: Stripe's check looks only back.
  const t = /(?:^|,)\s*t=(\d{1,12})(?:,|$)/.exec(header)?.[1];
  if (!t || Number(t) - now / 1000 > SIGNATURE_TOLERANCE_S) return null;
  // The check needs no account: the package's own, without a client (a server may have the secret alone).
  const { default: Stripe } = await import("stripe");
  let event: Awaited<ReturnType<StripeClient["webhooks"]["constructEventAsync"]>>;
  try {
    event = await Stripe.webhooks.constructEventAsync(payload, header, settings.webhookSecret, SIGNATURE_TOLERANCE_S, undefined, now);
  } catch {
    return null;
  }
  const object = event.data.object as { object?: string; payment_intent?: unknown };
  return {
    id: event.id,
    type: event.type,
    session: object.object === "checkout.session" ? sessionOf(object as StripeSession) : null,
    refundedIntent: event.type === "charge.refunded" && typeof object.payment_intent === "string" ? object.payment_intent : null,
  };
}
