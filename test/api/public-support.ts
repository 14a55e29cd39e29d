import { expect } from "bun:test";
import type { Submission } from "../../src/domain/types.ts";
import { BASE, testApp, type TestApp } from "../helpers/app.ts";

/** A submission as the list API shows it. */
export type StoredSubmission = Submission;

/** An in-process app with one account and its admin key, for driving the public endpoint. */
export interface PublicFixture {
  t: TestApp;
  key: string;
  /** Makes a live form through the management API and returns its id and slug. */
  form(body?: Record<string, unknown>): Promise<{ id: string; slug: string }>;
  /** Posts to the public endpoint (`/f/{slug}` unless `path` says `/api/f`); plain objects are sent as JSON. */
  post(slug: string, options?: PostOptions): Promise<Response>;
  /** Every submission of the form, spam or not, read through the management API, oldest first. */
  stored(formId: string): Promise<StoredSubmission[]>;
  close(): void;
}

export interface PostOptions {
  body?: unknown;
  headers?: Record<string, string>;
  ip?: string;
  path?: "/f" | "/api/f";
  method?: string;
}

/** A fresh app on a fresh database; the options reach the rate limiter and the body limit. */
export async function publicFixture(options: { rateLimit?: number; rateBurst?: number; maxBody?: number } = {}): Promise<PublicFixture> {
  const t = await testApp(options);
  const account = await t.account();
  const key = await account.key();
  return {
    t,
    key,
    async form(body = {}) {
      const created = await t.request("POST", "/api/forms", { key, body: { name: "Contact", ...body } });
      expect(created.status).toBe(201);
      return (await created.json()) as { id: string; slug: string };
    },
    post(slug, { body, headers = {}, ip = "127.0.0.1", path = "/f", method = "POST" } = {}) {
      const init: RequestInit & { duplex?: "half" } = { method, headers: { ...headers } };
      if (typeof body === "string" || body instanceof FormData || body instanceof URLSearchParams || body instanceof Uint8Array) {
        init.body = body as BodyInit;
      } else if (body instanceof ReadableStream) {
        init.body = body;
        init.duplex = "half";
      } else if (body !== undefined) {
        init.body = JSON.stringify(body);
        (init.headers as Record<string, string>)["content-type"] ??= "application/json";
      }
      return t.app.fetch(new Request(`${BASE}${path}/${slug}`, init), { ip });
    },
    async stored(formId) {
      const all: StoredSubmission[] = [];
      for (const filter of ["all", "spam"]) {
        const answer = await t.request("GET", `/api/forms/${formId}/submissions?filter=${filter}&order=asc&limit=100`, { key });
        expect(answer.status).toBe(200);
        all.push(...((await answer.json()) as { submissions: StoredSubmission[] }).submissions);
      }
      return all.sort((a, b) => (a.id < b.id ? -1 : 1));
    },
    close: () => t.close(),
  };
}

/** A body that arrives in chunks without a Content-Length, as `Transfer-Encoding: chunked` does. */
export function chunked(text: string, pieces = 4): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const size = Math.ceil(bytes.length / pieces);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** Asserts the API's JSON error (docs/api.md, "Errors"): the status, the code, a message, and the field when one is at fault. */
export async function expectJsonError(response: Response, status: number, code: string, field?: string): Promise<void> {
  const text = await response.text();
  expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({ status, type: "application/json; charset=utf-8" });
  const error = { code, message: expect.stringMatching(/\w.*\w/), ...(field ? { field } : {}) };
  expect(JSON.parse(text)).toEqual({ error, errors: [error] });
}

/** Asserts the browser's error page: same status, HTML that says what failed, and no JSON dump. */
export async function expectHtmlError(response: Response, status: number, contains: (string | RegExp)[] = []): Promise<string> {
  const page = await response.text();
  expect({ status: response.status, type: response.headers.get("content-type") }).toEqual({ status, type: "text/html; charset=utf-8" });
  expect(page).toStartWith("<!doctype html>");
  expect(page).toContain("was not sent");
  expect(page).not.toContain('{"error"');
  for (const part of contains) expect(page).toMatch(part);
  return page;
}

/** One row of a table of public submissions: the form, the request, and what the user must see and find stored. */
export interface Scenario {
  name: string;
  form?: Record<string, unknown>;
  /** Post to this slug instead of the new form's. */
  slug?: string;
  request: PostOptions | (() => PostOptions);
  status: number;
  /** The error the answer carries, as the API's JSON or, for a browser, as the HTML page. */
  error?: { code: string; field?: string; html?: boolean };
  /** Where a 303 sends the browser. */
  location?: string;
  /** Headers the answer must carry (null: must not carry). */
  headers?: Record<string, string | null>;
  /** What a success stored; every success must be listed afterwards, and an error must store nothing. */
  stored?: { data: Record<string, unknown>; isSpam?: boolean };
}

const SUCCESS_JSON = { success: true, message: expect.stringMatching(/\w/), id: expect.stringMatching(/^sub_/), next: expect.stringMatching(/^https?:\/\//) };

/** Runs one scenario on a form of its own and checks the answer and the store. */
export async function runScenario(fx: PublicFixture, scenario: Scenario): Promise<void> {
  const form = await fx.form(scenario.form);
  const request = typeof scenario.request === "function" ? scenario.request() : scenario.request;
  const answer = await fx.post(scenario.slug ?? form.slug, request);
  for (const [name, value] of Object.entries(scenario.headers ?? {})) expect([name, answer.headers.get(name)]).toEqual([name, value]);
  let id: string | undefined;
  if (scenario.error?.html) await expectHtmlError(answer, scenario.status);
  else if (scenario.error) await expectJsonError(answer, scenario.status, scenario.error.code, scenario.error.field);
  else if (scenario.status === 200) {
    const body = (await answer.json()) as { id: string };
    expect({ status: answer.status, body }).toEqual({ status: 200, body: SUCCESS_JSON });
    id = body.id;
  } else {
    expect({ status: answer.status, location: answer.headers.get("location"), body: await answer.text() }).toEqual({
      status: scenario.status,
      location: scenario.location ?? null,
      body: "",
    });
  }
  const stored = await fx.stored(form.id);
  if (!scenario.stored) {
    expect(stored).toEqual([]);
    return;
  }
  expect(stored.map((s) => ({ data: s.data, isSpam: s.isSpam }))).toEqual([{ data: scenario.stored.data, isSpam: scenario.stored.isSpam ?? false }]);
  if (id) expect(stored[0]!.id).toBe(id);
}
