import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";
import { parseStripeForm, sendEvent, STRIPE, startStripe, stripeEvent, stripeSignature, type StripeStandIn } from "../helpers/stripe.ts";

// Payments with a submission (docs/api.md, "Payments"), in-process against a Stripe stand-in on a real socket:
// the post stored awaiting payment, the Checkout Session asked for as Stripe reads it, and Stripe's signed events
// keeping the submission once, whatever their number and order.

let stripe: StripeStandIn;
let t: TestApp;
let key: string;
let accountId: string;
const HOOK = `${BASE}/stripe/webhook`;

beforeAll(async () => {
  stripe = startStripe();
  t = await testApp({ payments: { secretKey: STRIPE.secretKey, webhookSecret: STRIPE.webhookSecret, apiBase: stripe.url } });
  const account = await t.account();
  accountId = account.id;
  key = await account.key();
});

afterAll(() => stripe.stop());

/** Sends an event to the app as Stripe would (signed, unless `signature` says otherwise). */
async function deliver(event: Record<string, unknown>, signature?: (payload: string) => string): Promise<Response> {
  const payload = JSON.stringify(event);
  return t.app.fetch(
    new Request(HOOK, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": (signature ?? stripeSignature)(payload) },
      body: payload,
    }),
  );
}

async function makeForm(payment: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const response = await t.request("POST", "/api/forms", { key, body: { name: "Workshop", notificationEmail: "owner@example.com", payment, ...extra } });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; slug: string; payment: unknown };
}

const postJson = (slug: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  t.request("POST", `/f/${slug}`, { body, headers: { accept: "application/json", ...headers } });

const list = async (formId: string, query = "") => (await (await t.request("GET", `/api/forms/${formId}/submissions${query}`, { key })).json()) as any;
const getOne = async (formId: string, id: string) => (await (await t.request("GET", `/api/forms/${formId}/submissions/${id}`, { key })).json()) as any;
const notificationsOf = async (formId: string, id: string) =>
  ((await (await t.request("GET", `/api/forms/${formId}/notifications`, { key })).json()) as any).notifications.filter(
    (n: any) => n.submissionId === id && n.kind === "notification",
  );
const deliveriesOf = async (formId: string, id: string) =>
  ((await (await t.request("GET", `/api/forms/${formId}/deliveries`, { key })).json()) as any).deliveries.filter((d: any) => d.submissionId === id);
const sessionOf = (id: string) => [...stripe.sessions.values()].find((s) => s.client_reference_id === id)!;

describe("a form's payment", () => {
  test("is refused, naming the setting, when the server has no Stripe key", async () => {
    const bare = await testApp();
    const bareKey = await (await bare.account()).key();
    const response = await bare.request("POST", "/api/forms", {
      key: bareKey,
      body: { name: "Shop", payment: { provider: "stripe", currency: "eur", amount: 1500 } },
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as any;
    expect(error).toMatchObject({ code: "invalid_parameter", field: "payment" });
    expect(error.message).toContain("--stripe-secret-key");
  });

  test("takes a fixed amount or listed amounts, never both, and is shown with the form", async () => {
    const both = await t.request("POST", "/api/forms", {
      key,
      body: { name: "Bad", payment: { provider: "stripe", currency: "eur", amount: 100, amountField: "tier", amounts: [100] } },
    });
    expect(both.status).toBe(400);
    const noAmounts = await t.request("POST", "/api/forms", {
      key,
      body: { name: "Bad", payment: { provider: "stripe", currency: "eur", amountField: "tier" } },
    });
    expect(noAmounts.status).toBe(400);
    const form = await makeForm({ provider: "stripe", currency: "EUR", amountField: "tier", amounts: [2500, 5000], description: "Ticket" });
    expect(form.payment).toEqual({ provider: "stripe", currency: "eur", amountField: "tier", amounts: [2500, 5000], description: "Ticket" });
  });
});

describe("a post to a form that takes a payment", () => {
  test("is stored awaiting payment, out of the lists and counters, and sent to a Checkout Session made as Stripe reads it", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    const before = stripe.calls.length;
    const response = await postJson(form.slug, { email: "ann@example.com", name: "Ann" });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as any;
    expect(answer.success).toBe(true);
    expect(answer.paymentUrl).toStartWith(`${stripe.url}/c/pay/cs_test_`);

    const calls = stripe.calls.slice(before);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.headers.authorization).toBe(`Bearer ${STRIPE.secretKey}`);
    expect(calls[0]!.headers["idempotency-key"]).toBe(answer.id);
    expect(parseStripeForm(calls[0]!.body)).toEqual({
      mode: "payment",
      line_items: [{ price_data: { currency: "eur", unit_amount: "1500", product_data: { name: "Workshop" } }, quantity: "1" }],
      client_reference_id: answer.id,
      metadata: { submission_id: answer.id },
      success_url: `${BASE}/thanks`,
      cancel_url: `${BASE}/thanks`,
      customer_email: "ann@example.com",
    });

    const kept = await list(form.id);
    expect(kept.pagination.total).toBe(0);
    expect(kept.submissions).toEqual([]);
    const awaiting = await list(form.id, "?filter=awaiting_payment");
    expect(awaiting.submissions.map((s: any) => [s.id, s.payment])).toEqual([
      [answer.id, { status: "awaiting", amount: 1500, currency: "eur", sessionId: sessionOf(answer.id).id, paymentIntent: null }],
    ]);
    const shown = (await (await t.request("GET", `/api/forms/${form.id}`, { key })).json()) as any;
    expect(shown.submissionCount).toBe(0);
    expect(await notificationsOf(form.id, answer.id)).toEqual([]);
  });

  test("from a browser is answered 303 to the payment page; the same Idempotency-Key is sent to the same page, with no second session", async () => {
    const form = await makeForm({ provider: "stripe", currency: "usd", amount: 900 });
    const before = stripe.calls.length;
    const post = () => t.request("POST", `/f/${form.slug}`, { body: new URLSearchParams({ message: "hello" }), headers: { "idempotency-key": "order-77" } });
    const first = await post();
    expect(first.status).toBe(303);
    const again = await post();
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toBe(first.headers.get("location"));
    expect(first.headers.get("location")).toStartWith(`${stripe.url}/c/pay/`);
    expect(stripe.calls.slice(before).filter((c) => c.method === "POST")).toHaveLength(1);
    expect((await list(form.id, "?filter=awaiting_payment")).submissions).toHaveLength(1);
  });

  test("pays the amount the visitor chose among the listed ones; any other is a field error and stores nothing", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amountField: "tier", amounts: [2500, 5000], description: "Conference ticket" });
    const chosen = (await (await postJson(form.slug, { tier: "5000", name: "Bo" })).json()) as any;
    expect(parseStripeForm(stripe.calls.at(-1)!.body).line_items[0].price_data).toEqual({
      currency: "eur",
      unit_amount: "5000",
      product_data: { name: "Conference ticket" },
    });
    expect((await getOne(form.id, chosen.id)).payment).toMatchObject({ status: "awaiting", amount: 5000, currency: "eur" });
    for (const tier of ["4000", undefined]) {
      const response = await postJson(form.slug, { name: "Cy", ...(tier ? { tier } : {}) });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error).toMatchObject({ code: "validation_failed", field: "tier" });
    }
    expect((await list(form.id, "?filter=awaiting_payment")).pagination.total).toBe(1);
  });

  test("judged spam gets no session and is stored as any spam", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    const before = stripe.calls.length;
    const response = await postJson(form.slug, { name: "bot", _gotcha: "filled" });
    expect(response.status).toBe(200);
    expect(((await response.json()) as any).paymentUrl).toBeUndefined();
    expect(stripe.calls.length).toBe(before);
    const spam = await list(form.id, "?filter=spam");
    expect(spam.submissions).toHaveLength(1);
    expect(spam.submissions[0].payment).toBeUndefined();
  });

  test("while Stripe is down is answered 502 payment_unavailable and kept awaiting; a retry with its key reaches the page", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    stripe.outage(true);
    const headers = { "idempotency-key": "retry-1" };
    const refused = await postJson(form.slug, { email: "dee@example.com" }, headers);
    stripe.outage(false);
    expect(refused.status).toBe(502);
    expect(((await refused.json()) as any).error.code).toBe("payment_unavailable");
    const stored = await list(form.id, "?filter=awaiting_payment");
    expect(stored.submissions.map((s: any) => s.data)).toEqual([{ email: "dee@example.com" }]);
    expect(stored.submissions[0].payment.sessionId).toBeNull();
    const retried = (await (await postJson(form.slug, { email: "dee@example.com" }, headers)).json()) as any;
    expect(retried.id).toBe(stored.submissions[0].id);
    expect(retried.paymentUrl).toBe(sessionOf(retried.id).url);
  });
});

describe("Stripe's events", () => {
  async function awaitingPost(extra: Record<string, unknown> = {}) {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 }, extra);
    const hook = await t.request("POST", `/api/forms/${form.id}/webhooks`, { key, body: { url: "https://hooks.example.com/paid" } });
    expect(hook.status).toBe(201);
    const { id } = (await (await postJson(form.slug, { email: "eve@example.com" })).json()) as any;
    return { form, id, session: sessionOf(id) };
  }

  test("a paid session keeps the submission once: notified and delivered once however often and in whatever order events come", async () => {
    const { form, id, session } = await awaitingPost();
    const completed = stripe.pay(session.id);
    const succeeded = stripeEvent("checkout.session.async_payment_succeeded", completed.data.object);
    for (const event of [completed, completed, succeeded, completed]) expect((await deliver(event)).status).toBe(200);
    const submission = await getOne(form.id, id);
    expect(submission.payment).toEqual({ status: "paid", amount: 1500, currency: "eur", sessionId: session.id, paymentIntent: session.payment_intent });
    expect((await list(form.id)).submissions.map((s: any) => s.id)).toEqual([id]);
    expect(((await (await t.request("GET", `/api/forms/${form.id}`, { key })).json()) as any).submissionCount).toBe(1);
    expect(await notificationsOf(form.id, id)).toHaveLength(1);
    expect(await deliveriesOf(form.id, id)).toHaveLength(1);
    expect((await list(form.id, "?payment=paid")).submissions.map((s: any) => s.id)).toEqual([id]);
  });

  test("a refund marks a kept submission refunded, still kept and counted, with no new notification", async () => {
    const { form, id, session } = await awaitingPost();
    expect((await deliver(stripe.pay(session.id))).status).toBe(200);
    expect((await deliver(stripe.refund(session.id))).status).toBe(200);
    expect((await getOne(form.id, id)).payment.status).toBe("refunded");
    expect((await list(form.id)).pagination.total).toBe(1);
    expect((await list(form.id, "?payment=refunded")).submissions.map((s: any) => s.id)).toEqual([id]);
    expect((await list(form.id, "?payment=paid")).submissions).toEqual([]);
    expect(await notificationsOf(form.id, id)).toHaveLength(1);
  });

  test("a refund told before its payment still applies: kept once, refunded", async () => {
    const { form, id, session } = await awaitingPost();
    const completed = stripe.pay(session.id);
    expect((await deliver(stripe.refund(session.id))).status).toBe(200);
    expect((await getOne(form.id, id)).payment.status).toBe("awaiting");
    expect((await deliver(completed)).status).toBe(200);
    expect((await getOne(form.id, id)).payment.status).toBe("refunded");
    expect(await notificationsOf(form.id, id)).toHaveLength(1);
    expect(await deliveriesOf(form.id, id)).toHaveLength(1);
  });

  test("an expired session marks the submission expired, never kept; an expired one listed by payment=expired", async () => {
    const { form, id, session } = await awaitingPost();
    expect((await deliver(stripe.expire(session.id))).status).toBe(200);
    expect((await getOne(form.id, id)).payment.status).toBe("expired");
    expect((await list(form.id)).submissions).toEqual([]);
    expect((await list(form.id, "?filter=awaiting_payment")).submissions).toEqual([]);
    expect((await list(form.id, "?payment=expired")).submissions.map((s: any) => s.id)).toEqual([id]);
    expect(await notificationsOf(form.id, id)).toEqual([]);
  });

  test("a bad, stale or missing signature is 400 and changes nothing; several v1 values pass when one matches", async () => {
    const { form, id, session } = await awaitingPost();
    const event = stripe.pay(session.id);
    const now = Math.floor(Date.now() / 1000);
    const refusals = [
      (payload: string) => stripeSignature(payload, "whsec_someoneElse"),
      (payload: string) => stripeSignature(payload, STRIPE.webhookSecret, now - 301),
      (payload: string) => stripeSignature(`${payload} `),
      () => "",
    ];
    for (const signature of refusals) {
      const response = await deliver(event, signature);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error).toMatchObject({ code: "invalid_parameter", field: "Stripe-Signature" });
    }
    expect((await getOne(form.id, id)).payment.status).toBe("awaiting");
    // Stripe signs with both secrets while one replaces the other.
    const rolled = (payload: string) => `${stripeSignature(payload, "whsec_oldSecret")},v1=${stripeSignature(payload).split("v1=")[1]}`;
    expect((await deliver(event, rolled)).status).toBe(200);
    expect((await getOne(form.id, id)).payment.status).toBe("paid");
  });

  test("an event of another type, or for a submission formsvc does not know, is answered 200 and ignored", async () => {
    expect((await deliver(stripeEvent("customer.created", { id: "cus_1", object: "customer" }))).status).toBe(200);
    const stranger = stripeEvent("checkout.session.completed", {
      id: "cs_test_other",
      object: "checkout.session",
      client_reference_id: null,
      payment_status: "paid",
    });
    expect((await deliver(stranger)).status).toBe(200);
  });

  test("over a real socket, as Stripe sends them", async () => {
    const { form, id, session } = await awaitingPost();
    const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => t.app.fetch(request) });
    try {
      const response = await sendEvent(`http://127.0.0.1:${server.port}/stripe/webhook`, stripe.pay(session.id));
      expect(response.status).toBe(200);
      expect((await getOne(form.id, id)).payment.status).toBe("paid");
    } finally {
      server.stop(true);
    }
  });
});

describe("a payment awaiting for more than a day with no event", () => {
  test("is asked for its session's state once and settled: paid kept, expired marked, open left awaiting", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    const ids: string[] = [];
    for (const name of ["paid", "expired", "open"]) ids.push(((await (await postJson(form.slug, { name })).json()) as any).id);
    const [paid, expired, open] = ids.map(sessionOf) as [any, any, any];
    stripe.pay(paid.id);
    stripe.expire(expired.id);
    const asked = () => stripe.calls.filter((c) => c.method === "GET" && [paid, expired, open].some((s) => c.path.endsWith(s.id))).length;
    expect(await t.services.payments.settleStale(Date.now())).toBe(0);
    expect(asked()).toBe(0);
    const later = Date.now() + 25 * 3_600_000;
    await t.services.payments.settleStale(later);
    expect(asked()).toBe(3);
    const statuses = await Promise.all(ids.map(async (id) => (await getOne(form.id, id)).payment.status));
    expect(statuses).toEqual(["paid", "expired", "awaiting"]);
    expect(await notificationsOf(form.id, ids[0]!)).toHaveLength(1);
    await t.services.payments.settleStale(later + 3_600_000);
    expect(asked()).toBe(3);
  });
});

describe("exports", () => {
  test("carry the payment: CSV columns on a form that takes one, the payment object in NDJSON", async () => {
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    const { id } = (await (await postJson(form.slug, { name: "Flo" })).json()) as any;
    await deliver(stripe.pay(sessionOf(id).id));
    const csv = await (await t.request("GET", `/api/forms/${form.id}/submissions/export?format=csv`, { key })).text();
    expect(csv.split("\n")[0]).toBe("id,createdAt,paymentStatus,paymentAmount,paymentCurrency,name");
    expect(csv.split("\n")[1]).toEndWith(",paid,1500,eur,Flo");
    const ndjson = await (await t.request("GET", `/api/forms/${form.id}/submissions/export?format=ndjson`, { key })).text();
    expect(JSON.parse(ndjson.trim()).payment).toEqual(await getOne(form.id, id).then((s) => s.payment));
  });
});

describe("the dashboard", () => {
  test("lists awaiting payments under their own tab, and shows a submission's payment", async () => {
    const user = await t.services.users.create(accountId, "owner@example.com", "a long enough password");
    const cookie = `formsvc_session=${(await t.services.users.createSession(user.id)).token}`;
    const page = async (path: string) => (await t.app.fetch(new Request(`${BASE}${path}`, { headers: { cookie } }))).text();
    const form = await makeForm({ provider: "stripe", currency: "eur", amount: 1500 });
    const { id } = (await (await postJson(form.slug, { name: "Gus" })).json()) as any;
    const awaiting = await page(`/dashboard/forms/${form.id}/submissions?filter=awaiting_payment`);
    expect(awaiting).toContain("Awaiting payment");
    expect(awaiting).toMatch(/\(awaiting EUR\s15\.00\)/);
    expect(await page(`/dashboard/forms/${form.id}/submissions`)).not.toContain(id);
    await deliver(stripe.pay(sessionOf(id).id));
    expect(await page(`/dashboard/forms/${form.id}/submissions/${id}`)).toMatch(/Payment paid EUR\s15\.00 · Stripe pi_/);
  });
});
