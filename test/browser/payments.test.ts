import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { BrowserContext } from "playwright-core";
import { launchBrowser } from "../helpers/browser.ts";
import { runCli } from "../helpers/cli.ts";
import { startServerProcess, type ServerProcess } from "../helpers/server.ts";
import { STRIPE, startStripe, type StripeStandIn } from "../helpers/stripe.ts";

// A visitor pays for a seat in Chromium (docs/api.md, "Payments"): a plain HTML form on another site posts to the
// real server, which sends the browser to the Stripe stand-in's checkout page; paying there sends Stripe's signed
// event to the server and brings the browser back to the thank-you page.
const WAIT = { timeout: 25_000 };

let server: ServerProcess;
let stripe: StripeStandIn;
let site: ReturnType<typeof Bun.serve>;
let browser: BrowserContext;
let key: string;
let form: { id: string; slug: string };

beforeAll(async () => {
  stripe = startStripe();
  server = await startServerProcess({
    args: ["--rate-limit", "0"],
    env: { FORMSVC_STRIPE_SECRET_KEY: STRIPE.secretKey, FORMSVC_STRIPE_WEBHOOK_SECRET: STRIPE.webhookSecret, FORMSVC_STRIPE_API_BASE: stripe.url },
  });
  stripe.webhookUrl = `${server.url}/stripe/webhook`;
  key = (await runCli(["keys", "create", "--db", server.db])).stdout.trim();
  const made = await fetch(`${server.url}/api/forms`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "Pottery class", payment: { provider: "stripe", currency: "eur", amountField: "seat", amounts: [4000, 6500] } }),
  });
  form = (await made.json()) as { id: string; slug: string };
  const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Book a seat</title></head><body><main>
    <form action="${server.url}/f/${form.slug}" method="post">
      <label>Name <input name="name" id="name"></label>
      <label>Seat <select name="seat" id="seat"><option value="4000">Standard, 40 EUR</option><option value="6500">Wheel, 65 EUR</option></select></label>
      <button id="book">Book and pay</button>
    </form></main></body></html>`;
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }) });
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  site?.stop(true);
  await server?.stop();
  if (server) rmSync(server.dir, { recursive: true, force: true });
  stripe?.stop();
});

test("the visitor posts the form, pays on Stripe's page and comes back to the thank-you page; the order is then kept", async () => {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${site.port}/`);
  await page.fill("#name", "Ann Potter");
  await page.selectOption("#seat", "6500");
  await page.click("#book");
  await page.waitForURL(/\/c\/pay\/cs_test_/, WAIT);
  expect(await page.textContent("#amount")).toBe("65.00 EUR");
  await page.click("#pay");
  await page.waitForURL(`${server.url}/thanks`, WAIT);
  expect(await page.textContent("body")).toContain("Thank you");
  const listed = (await (await fetch(`${server.url}/api/forms/${form.id}/submissions`, { headers: { authorization: `Bearer ${key}` } })).json()) as any;
  expect(listed.submissions.map((s: any) => [s.data.name, s.payment.status, s.payment.amount])).toEqual([["Ann Potter", "paid", 6500]]);
});
