import { mkdtempSync, rmSync } from "node:fs";
import type { StripeSettings } from "../../src/services/payments/stripe.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Operation } from "../../src/api/operation.ts";
import { createApp, type App } from "../../src/app.ts";
import { openStore } from "../../src/db/client.ts";
import { Metrics } from "../../src/http/metrics.ts";
import { RateLimiter } from "../../src/http/rate-limit.ts";
import { createServices, type Services } from "../../src/services/index.ts";
import type { Mode, Permission } from "../../src/domain/types.ts";
import { operator } from "../../src/services/principal.ts";
import type { WebhookOptions } from "../../src/services/outbox/webhooks.ts";
import type { CaptchaOptions } from "../../src/services/spam/captcha.ts";
import { TEST_DNS } from "./dns.ts";
import { checkResponse } from "./openapi.ts";

export const BASE = "http://formsvc.test";

/** A fresh app on a fresh SQLite file in a temp dir, called in-process with `app.fetch`. */
export interface TestApp {
  app: App;
  services: Services;
  dir: string;
  logs: string[];
  /** Sends a request to the app; `body` objects are sent as JSON. */
  request(method: string, path: string, options?: { key?: string; body?: unknown; headers?: Record<string, string>; ip?: string }): Promise<Response>;
  /** A new account and a key on it (default: a live admin key). */
  account(name?: string): Promise<TestAccount>;
  close(): void;
}

export interface TestAccount {
  id: string;
  key(options?: { type?: "live" | "test" | "form"; permissions?: Permission[]; formId?: string }): Promise<string>;
  /** A form made straight through the service, in a mode. */
  form(body?: Record<string, unknown>, mode?: Mode): Promise<{ id: string; slug: string }>;
}

/**
 * The driver the suite runs on: bun:sqlite by default, libSQL with FORMSVC_TEST_DRIVER=libsql, so that
 * the same tests check both (`FORMSVC_TEST_DRIVER=libsql bun test test/api`).
 */
export type Driver = "sqlite" | "libsql";
const defaultDriver = (): Driver => (process.env.FORMSVC_TEST_DRIVER === "libsql" ? "libsql" : "sqlite");

export async function testApp(
  options: {
    rateLimit?: number;
    rateBurst?: number;
    maxBody?: number;
    maxFileSize?: number;
    driver?: Driver;
    webhooks?: WebhookOptions;
    /** The server's Stripe account (test/helpers/stripe.ts serves a stand-in); absent: no form takes a payment. */
    payments?: StripeSettings;
    captcha?: CaptchaOptions;
    trustProxy?: boolean;
    /** The API's operations, or those and one a test adds (test/api/adding-an-endpoint.test.ts). */
    operations?: readonly Operation[];
  } = {},
): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), "formsvc-test-"));
  const file = join(dir, "formsvc.db");
  const store = await openStore((options.driver ?? defaultDriver()) === "libsql" ? `file:${file}` : file);
  // Webhook addresses are checked against a fixed table of names: the machine has no DNS to ask.
  const services = createServices(
    store,
    { baseUrl: () => BASE, submitUrl: () => BASE },
    { webhooks: options.webhooks ?? { allowPrivate: false, resolve: TEST_DNS }, payments: options.payments },
  );
  const logs: string[] = [];
  const app = createApp(
    {
      services,
      maxBody: options.maxBody ?? 1024 * 1024,
      maxFileSize: options.maxFileSize,
      trustProxy: options.trustProxy ?? false,
      rateLimiter: new RateLimiter(options.rateLimit ?? 0, options.rateBurst ?? 10),
      captcha: options.captcha,
      log: {
        request: (line) => logs.push(line),
        error: (message, error, requestId) => logs.push(`${message}${requestId ? ` (request ${requestId})` : ""}: ${String(error)}`),
      },
    },
    options.operations,
  );
  return {
    app,
    services,
    dir,
    logs,
    async request(method, path, { key, body, headers = {}, ip = "127.0.0.1" } = {}) {
      const init: RequestInit = { method, headers: { ...headers } };
      if (key) (init.headers as Record<string, string>).authorization = `Bearer ${key}`;
      if (body !== undefined) {
        if (typeof body === "string" || body instanceof FormData || body instanceof URLSearchParams) init.body = body;
        else {
          init.body = JSON.stringify(body);
          (init.headers as Record<string, string>)["content-type"] ??= "application/json";
        }
      }
      const response = await app.fetch(new Request(`${BASE}${path}`, init), { ip });
      // Every answer an API test receives is checked against the OpenAPI document: one that drifts fails its test.
      await checkResponse(method, `${BASE}${path}`, response, options.operations);
      return response;
    },
    async account(name = "test") {
      const account = await services.accounts.create(name);
      return {
        id: account.id,
        async key({ type = "live", permissions, formId } = {}) {
          const mode: Mode = type === "test" ? "test" : "live";
          let acting = operator(account.id, mode);
          if (type === "form" && formId) {
            // A form key takes its form's mode.
            for (const m of ["live", "test"] as Mode[]) {
              const found = await services.forms.findRow(operator(account.id, m), formId).catch(() => null);
              if (found) acting = operator(account.id, m);
            }
          }
          const created = await services.keys.create(acting, { type, permissions, formId });
          return created.key;
        },
        async form(body = {}, mode = "live") {
          const form = await services.forms.create(operator(account.id, mode), { name: "Contact", ...body });
          return { id: form.id, slug: form.slug };
        },
      };
    },
    close() {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Every route the app registers, as `METHOD /path/:param`: the app itself with every optional route turned on
 * (metrics on the main port), not a router rebuilt from a list of modules.
 */
export async function registeredRoutes(): Promise<string[]> {
  const t = await testApp();
  try {
    const app = createApp({
      services: t.services,
      maxBody: 1024,
      trustProxy: false,
      rateLimiter: new RateLimiter(0, 1),
      log: { request() {}, error() {} },
      metrics: new Metrics(),
      serveMetrics: true,
    });
    return app.routes().map((r) => `${r.method} ${r.path}`);
  } finally {
    t.close();
  }
}
