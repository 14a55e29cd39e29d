// A small faithful stand-in of Stripe's API on 127.0.0.1 (port 0), checking what Stripe checks (its API reference,
// "Checkout Sessions", "Idempotent requests", "Errors", "Check the webhook signatures"): the secret key as a Bearer
// token, form-encoded bodies with nested keys in brackets (line_items[0][price_data][currency]), unknown parameters
// refused, an Idempotency-Key that answers the same session again (and refuses other parameters), Stripe's object and
// error shapes; a checkout page a browser can pay on, after which the signed event is sent as Stripe sends it.
import { createHmac, randomBytes } from "node:crypto";

/** The secret key and the webhook signing secret the stand-in's account holds. */
export const STRIPE = { secretKey: "sk_test_51Faithful0123456789abcdef", webhookSecret: "whsec_faithfulSigningSecret0123456789" } as const;

export interface StripeCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface StripeStandIn {
  url: string;
  calls: StripeCall[];
  /** The sessions made, by id, as Stripe holds them. */
  sessions: Map<string, Record<string, any>>;
  /** Where the checkout page sends its events (formsvc's /stripe/webhook), once known. */
  webhookUrl: string | null;
  /** Answers every API request 500 api_error while `down`, as Stripe does in an outage. */
  outage(down: boolean): void;
  /** Pays the session (as a visitor on the checkout page) and returns the checkout.session.completed event. */
  pay(sessionId: string): Record<string, any>;
  /** Expires the session and returns the checkout.session.expired event. */
  expire(sessionId: string): Record<string, any>;
  /** Refunds the session's payment and returns the charge.refunded event. */
  refund(sessionId: string): Record<string, any>;
  stop(): void;
}

const randomId = (prefix: string) => `${prefix}${randomBytes(18).toString("base64url").replace(/[-_]/g, "x")}`;

/** The `Stripe-Signature` header Stripe sends with `payload` at `t` (seconds): `t=…,v1=HMAC-SHA256(t.payload)`. */
export function stripeSignature(payload: string, secret: string = STRIPE.webhookSecret, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${payload}`).digest("hex")}`;
}

/** An event object as Stripe sends it. */
export function stripeEvent(type: string, object: Record<string, unknown>): Record<string, any> {
  return {
    id: randomId("evt_1"),
    object: "event",
    api_version: "2025-03-31.basil",
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** Posts `event` to `url` signed as Stripe signs it (or with `signature` as given); the answer's status. */
export async function sendEvent(url: string, event: Record<string, unknown>, signature?: string): Promise<Response> {
  const payload = JSON.stringify(event, null, 2);
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json; charset=utf-8",
      "stripe-signature": signature ?? stripeSignature(payload),
      "user-agent": "Stripe/1.0 (+https://stripe.com/docs/webhooks)",
    },
    body: payload,
  });
}

const stripeError = (status: number, error: Record<string, unknown>) => Response.json({ error: { type: "invalid_request_error", ...error } }, { status });

/** Reads Stripe's form encoding: `a[b][0][c]=v` into nested objects and arrays, as Stripe's API does. */
export function parseStripeForm(body: string): Record<string, any> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.match(/^[^[\]]+|\[[^[\]]*\]/g)?.map((part) => part.replace(/^\[|\]$/g, "")) ?? [key];
    if (path.join("") !== key.replace(/[[\]]/g, "")) throw new Error(`malformed key ${key}`);
    let node: any = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const index = /^\d+$/.test(part) ? Number(part) : part;
      if (last) node[index] = value;
      else node[index] ??= /^\d+$/.test(path[i + 1]!) ? [] : {};
      node = node[index];
    });
  }
  return root;
}

const TOP_LEVEL = new Set([
  "mode",
  "line_items",
  "client_reference_id",
  "metadata",
  "success_url",
  "cancel_url",
  "customer_email",
  "expires_at",
  "payment_method_types",
  "locale",
]);

/** Checks a Checkout Session's parameters as Stripe does: the first fault as Stripe words it, or null. */
function sessionFault(params: Record<string, any>): Record<string, unknown> | null {
  for (const name of Object.keys(params))
    if (!TOP_LEVEL.has(name)) return { code: "parameter_unknown", param: name, message: `Received unknown parameter: ${name}` };
  if (!["payment", "subscription", "setup"].includes(params.mode))
    return { code: "parameter_missing", param: "mode", message: "Missing required param: mode." };
  const items = params.line_items;
  if (!Array.isArray(items) || items.length === 0) return { code: "parameter_missing", param: "line_items", message: "Missing required param: line_items." };
  for (const [i, item] of items.entries()) {
    const data = item?.price_data;
    if (!data) return { code: "parameter_missing", param: `line_items[${i}][price_data]`, message: `Missing required param: line_items[${i}][price_data].` };
    if (!/^[a-z]{3}$/.test(data.currency ?? ""))
      return { code: "parameter_invalid_string", param: `line_items[${i}][price_data][currency]`, message: "Invalid currency." };
    if (!/^\d+$/.test(data.unit_amount ?? ""))
      return { code: "parameter_invalid_integer", param: `line_items[${i}][price_data][unit_amount]`, message: "Invalid integer." };
    if (!data.product_data?.name)
      return { code: "parameter_missing", param: `line_items[${i}][price_data][product_data][name]`, message: "Missing required param." };
    if (!/^\d+$/.test(item.quantity ?? "")) return { code: "parameter_missing", param: `line_items[${i}][quantity]`, message: "Quantity is required." };
  }
  if (!/^https?:\/\//.test(params.success_url ?? "")) return { code: "url_invalid", param: "success_url", message: "Not a valid URL" };
  if (params.cancel_url !== undefined && !/^https?:\/\//.test(params.cancel_url))
    return { code: "url_invalid", param: "cancel_url", message: "Not a valid URL" };
  return null;
}

/** Starts the stand-in; `webhookUrl` (settable later) is where its checkout page sends the completed event. */
export function startStripe(options: { webhookUrl?: string } = {}): StripeStandIn {
  const calls: StripeCall[] = [];
  const sessions = new Map<string, Record<string, any>>();
  const names = new Map<string, string>();
  const idempotent = new Map<string, { body: string; answer: Record<string, any> }>();
  let down = false;

  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = await request.text();
      const checkout = /^\/c\/pay\/(cs_test_\w+)(\/pay)?$/.exec(url.pathname);
      if (checkout) return checkoutPage(checkout[1]!, request.method, Boolean(checkout[2]));
      calls.push({ method: request.method, path: url.pathname, headers: Object.fromEntries(request.headers), body });
      if (down) {
        return Response.json({ error: { type: "api_error", message: "An unknown error occurred" } }, { status: 500 });
      }
      const auth = request.headers.get("authorization") ?? "";
      if (!auth.startsWith("Bearer ")) return stripeError(401, { message: "You did not provide an API key." });
      if (auth !== `Bearer ${STRIPE.secretKey}`) return stripeError(401, { message: `Invalid API Key provided: ${auth.slice(7, 15)}****` });
      if (request.method === "POST" && url.pathname === "/v1/checkout/sessions") {
        if (!request.headers.get("content-type")?.startsWith("application/x-www-form-urlencoded"))
          return stripeError(400, { message: "Invalid request: the body must be application/x-www-form-urlencoded." });
        const key = request.headers.get("idempotency-key");
        const earlier = key ? idempotent.get(key) : undefined;
        if (earlier && earlier.body !== body)
          return stripeError(400, {
            type: "idempotency_error",
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          });
        if (earlier) return Response.json(earlier.answer, { headers: { "Idempotent-Replayed": "true" } });
        let params: Record<string, any>;
        try {
          params = parseStripeForm(body);
        } catch (error) {
          return stripeError(400, { message: `Invalid request: ${(error as Error).message}` });
        }
        const fault = sessionFault(params);
        if (fault) return stripeError(400, fault);
        const session = newSession(params);
        sessions.set(session.id, session);
        // Line items are not part of a session's object: Stripe lists them at their own address.
        names.set(session.id, String(params.line_items[0].price_data.product_data.name));
        if (key) idempotent.set(key, { body, answer: session });
        return Response.json(session);
      }
      const one = /^\/v1\/checkout\/sessions\/([^/]+)$/.exec(url.pathname);
      if (request.method === "GET" && one) {
        const session = sessions.get(decodeURIComponent(one[1]!));
        if (!session) return stripeError(404, { code: "resource_missing", param: "session", message: `No such checkout.session: '${one[1]}'` });
        return Response.json(session);
      }
      return stripeError(404, { message: `Unrecognized request URL (${request.method}: ${url.pathname}).` });
    },
  });
  const base = `http://127.0.0.1:${server.port}`;

  function newSession(params: Record<string, any>): Record<string, any> {
    const id = randomId("cs_test_a1");
    const line = params.line_items[0];
    const amount = Number(line.price_data.unit_amount) * Number(line.quantity);
    return {
      id,
      object: "checkout.session",
      amount_subtotal: amount,
      amount_total: amount,
      cancel_url: params.cancel_url ?? null,
      client_reference_id: params.client_reference_id ?? null,
      created: Math.floor(Date.now() / 1000),
      currency: line.price_data.currency,
      customer_email: params.customer_email ?? null,
      expires_at: Math.floor(Date.now() / 1000) + 86_400,
      livemode: false,
      metadata: params.metadata ?? {},
      mode: params.mode,
      payment_intent: null,
      payment_status: "unpaid",
      status: "open",
      success_url: params.success_url,
      url: `${base}/c/pay/${id}`,
    };
  }

  const must = (sessionId: string) => {
    const session = sessions.get(sessionId);
    if (!session) throw new Error(`no session ${sessionId}`);
    return session;
  };
  const shown = (session: Record<string, any>) => ({ ...session });

  const standIn: StripeStandIn = {
    url: base,
    calls,
    sessions,
    webhookUrl: options.webhookUrl ?? null,
    outage(on) {
      down = on;
    },
    pay(sessionId) {
      const session = must(sessionId);
      Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: session.payment_intent ?? randomId("pi_3") });
      return stripeEvent("checkout.session.completed", shown(session));
    },
    expire(sessionId) {
      const session = must(sessionId);
      Object.assign(session, { status: "expired" });
      return stripeEvent("checkout.session.expired", shown(session));
    },
    refund(sessionId) {
      const session = must(sessionId);
      const charge = {
        id: randomId("ch_3"),
        object: "charge",
        amount: session.amount_total,
        amount_refunded: session.amount_total,
        currency: session.currency,
        payment_intent: session.payment_intent,
        refunded: true,
        status: "succeeded",
      };
      return stripeEvent("charge.refunded", charge);
    },
    stop: () => server.stop(true),
  };

  /** The hosted checkout page: a Pay button; paying sends the signed completed event, then goes to success_url. */
  async function checkoutPage(sessionId: string, method: string, paying: boolean): Promise<Response> {
    const session = sessions.get(sessionId);
    if (!session) return new Response("Something went wrong", { status: 404 });
    if (!paying || method !== "POST") {
      const amount = (session.amount_total / 100).toFixed(2);
      const name = (names.get(sessionId) ?? "").replace(/[<>&"]/g, "");
      return new Response(
        `<!doctype html><title>Checkout</title><h1>${name}</h1><p id="amount">${amount} ${session.currency.toUpperCase()}</p>` +
          `<form method="post" action="/c/pay/${sessionId}/pay"><button id="pay">Pay</button></form>`,
        { headers: { "content-type": "text/html; charset=utf-8" } },
      );
    }
    const event = standIn.pay(sessionId);
    if (standIn.webhookUrl) await sendEvent(standIn.webhookUrl, event);
    return new Response(null, { status: 303, headers: { location: session.success_url } });
  }

  return standIn;
}
