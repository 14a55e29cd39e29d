import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { runCli } from "../helpers/cli.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { startSmtpSink, type SmtpSink } from "../helpers/smtp.ts";
import { sendEvent, STRIPE, startStripe, stripeEvent, stripeSignature, type StripeStandIn } from "../helpers/stripe.ts";
import { startVendors, VENDOR, type Vendors } from "../helpers/vendors.ts";

// Payments end to end (docs/api.md, "Payments"): the real server process, a real SMTP server, a webhook receiver,
// an ntfy destination and the Stripe stand-in, which sends its events signed as Stripe does. What a paid
// submission sends goes out once, however often and in whatever order its events come.

let server: ServerProcess;
let sink: SmtpSink;
let receiver: Receiver;
let vendors: Vendors;
let stripe: StripeStandIn;
let key: string;
let form: { id: string; slug: string };
let hook: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  receiver = startReceiver();
  vendors = startVendors();
  stripe = startStripe();
  server = await startServerProcess({
    args: ["--rate-limit", "0", "--smtp-url", sink.url, "--mail-from", "Forms <forms@formsvc.example>", "--webhooks-allow-private"],
    env: {
      FORMSVC_MAIL_RETRY_BASE_MS: "20",
      FORMSVC_STRIPE_SECRET_KEY: STRIPE.secretKey,
      FORMSVC_STRIPE_WEBHOOK_SECRET: STRIPE.webhookSecret,
      FORMSVC_STRIPE_API_BASE: stripe.url,
    },
  });
  hook = `${server.url}/stripe/webhook`;
  stripe.webhookUrl = hook;
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  form = await api("POST", "/api/forms", {
    name: "Pottery class",
    notificationEmail: "owner@studio.example",
    payment: { provider: "stripe", currency: "eur", amountField: "seat", amounts: [4000, 6500], description: "Pottery class seat" },
  });
  await api("POST", `/api/forms/${form.id}/webhooks`, { url: `${receiver.url}/paid` });
  await api("POST", `/api/forms/${form.id}/destinations`, {
    type: "ntfy",
    config: { topic: VENDOR.ntfy.topic, token: VENDOR.ntfy.token, baseUrl: vendors.url },
  });
});

afterAll(async () => {
  await server.stop();
  rmSync(server.dir, { recursive: true, force: true });
  await sink.stop();
  receiver.stop();
  vendors.stop();
  stripe.stop();
});

async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as T;
}

/** Posts as a plain HTML form does; the session the browser is sent to. */
async function order(fields: Record<string, string>): Promise<{ submissionId: string; sessionId: string }> {
  const answer = await fetch(`${server.url}/f/${form.slug}`, { method: "POST", body: new URLSearchParams(fields), redirect: "manual" });
  expect(answer.status).toBe(303);
  const sessionId = /\/c\/pay\/(cs_test_\w+)$/.exec(answer.headers.get("location") ?? "")![1]!;
  return { submissionId: stripe.sessions.get(sessionId)!.client_reference_id, sessionId };
}

const mailsFor = (name: string) => sink.messages().filter((m) => m.text?.includes(name));
const callsFor = (id: string) => receiver.calls.filter((c) => c.body.includes(id));
const ntfyFor = (name: string) => vendors.accepted.ntfy.filter((n) => String(n.message).includes(name));

test("a paid order is mailed, sent to its webhook and its destination once, however often and in whatever order its events come", async () => {
  const ann = await order({ name: "Ann Potter", email: "ann@example.com", seat: "6500" });
  const bo = await order({ name: "Bo Marker", email: "bo@example.com", seat: "4000" });
  expect(await api("GET", `/api/forms/${form.id}/submissions`)).toMatchObject({ submissions: [], pagination: { total: 0 } });

  // Ann's refund comes first, then her completed event three times at once and the delayed-payment event.
  const completed = stripe.pay(ann.sessionId);
  expect((await sendEvent(hook, stripe.refund(ann.sessionId))).status).toBe(200);
  const answers = await Promise.all(
    [completed, completed, completed, stripeEvent("checkout.session.async_payment_succeeded", completed.data.object)].map((e) => sendEvent(hook, e)),
  );
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
  // Bo's payment, after all of Ann's: what Ann's events sent was queued before it.
  expect((await sendEvent(hook, stripe.pay(bo.sessionId))).status).toBe(200);

  await sink.waitFor(2);
  await receiver.waitFor(2);
  await vendors.waitFor("ntfy", 2);
  expect([mailsFor("Ann Potter").length, mailsFor("Bo Marker").length]).toEqual([1, 1]);
  expect(mailsFor("Ann Potter")[0]!.rcptTos).toEqual(["owner@studio.example"]);
  expect([callsFor(ann.submissionId).length, callsFor(bo.submissionId).length]).toEqual([1, 1]);
  expect([ntfyFor("Ann Potter").length, ntfyFor("Bo Marker").length]).toEqual([1, 1]);
  const event = JSON.parse(callsFor(bo.submissionId)[0]!.body);
  expect(event.data.submission.payment).toEqual({
    status: "paid",
    amount: 4000,
    currency: "eur",
    sessionId: bo.sessionId,
    paymentIntent: stripe.sessions.get(bo.sessionId)!.payment_intent,
  });
  const listed = await api("GET", `/api/forms/${form.id}/submissions?order=asc`);
  expect(listed.submissions.map((s: any) => [s.data.name, s.payment.status])).toEqual([
    ["Ann Potter", "refunded"],
    ["Bo Marker", "paid"],
  ]);
});

test("the visitor pays on Stripe's page and comes back to the thank-you page; the stand-in's event keeps the order", async () => {
  const cy = await order({ name: "Cy Glaze", seat: "4000" });
  const paid = await fetch(`${stripe.url}/c/pay/${cy.sessionId}/pay`, { method: "POST", redirect: "manual" });
  expect(paid.status).toBe(303);
  expect(paid.headers.get("location")).toBe(`${server.url}/thanks`);
  const shown = await api("GET", `/api/forms/${form.id}/submissions/${cy.submissionId}`);
  expect(shown.payment.status).toBe("paid");
});

test("a bad or stale signature is refused and changes nothing", async () => {
  const dee = await order({ name: "Dee Kiln", seat: "4000" });
  const event = stripe.pay(dee.sessionId);
  const payload = JSON.stringify(event);
  const stale = stripeSignature(payload, STRIPE.webhookSecret, Math.floor(Date.now() / 1000) - 600);
  for (const signature of [stale, stripeSignature(payload, "whsec_notTheEndpointsSecret")]) {
    const answer = await fetch(hook, { method: "POST", headers: { "stripe-signature": signature, "content-type": "application/json" }, body: payload });
    expect(answer.status).toBe(400);
  }
  const awaiting = await api("GET", `/api/forms/${form.id}/submissions?filter=awaiting_payment`);
  expect(awaiting.submissions.map((s: any) => s.id)).toContain(dee.submissionId);
});

test("Stripe down at post time loses nothing: 502 payment_unavailable, the post stored awaiting payment", async () => {
  stripe.outage(true);
  const answer = await fetch(`${server.url}/f/${form.slug}`, {
    method: "POST",
    headers: { accept: "application/json", "content-type": "application/json" },
    body: JSON.stringify({ name: "Eve Wheel", seat: "6500" }),
  });
  stripe.outage(false);
  expect(answer.status).toBe(502);
  expect(((await answer.json()) as any).error.code).toBe("payment_unavailable");
  const awaiting = await api("GET", `/api/forms/${form.id}/submissions?filter=awaiting_payment`);
  expect(awaiting.submissions.find((s: any) => s.data.name === "Eve Wheel")?.payment).toMatchObject({ status: "awaiting", amount: 6500, sessionId: null });
  expect(server.stderr()).toContain("payment page not made");
  expect(server.stderr()).not.toContain(STRIPE.secretKey);
});
