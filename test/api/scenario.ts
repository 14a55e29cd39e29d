import { describe, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";

/** A value, or a function of the world that gives it (ids and keys exist only once the world is made). */
export type Given<W, T> = T | ((world: W) => T);
/** Any JSON-ish value; `{}` rather than `unknown` so that a function in its place is typed as a Given. */
type Value = NonNullable<unknown> | null;

/**
 * One API call and what a user must see (PocketBase's ApiScenario): the request, the status, the whole body
 * when it is predictable, else text it must and must not contain, and headers.
 */
export interface ApiScenario<W> {
  name: string;
  method: string;
  url: Given<W, string>;
  /** The bearer key; leave out for an unauthenticated call. */
  key?: Given<W, string | undefined>;
  headers?: Given<W, Record<string, string>>;
  /** An object is sent as JSON; a string is sent as is. */
  body?: Given<W, Value>;
  /** Runs after the world is made and before the request. */
  before?: (world: W) => Promise<void>;
  expectedStatus: number;
  /** Compared with toEqual; asymmetric matchers (expect.any, expect.stringMatching) are welcome. */
  expectedBody?: Given<W, Value>;
  expectedContent?: Given<W, string[]>;
  notExpectedContent?: Given<W, string[]>;
  /** A string must equal the header; a RegExp must match it; null means the header must be absent. */
  expectedHeaders?: Given<W, Record<string, string | RegExp | null>>;
  /** Further checks on what the call left behind. */
  after?: (world: W, response: Response, body: unknown) => Promise<void>;
}

const resolve = <W, T>(value: Given<W, T>, world: W): T => (typeof value === "function" ? (value as (world: W) => T)(world) : value);

/** Sends one scenario's request to a fresh world and checks everything it expects. */
export async function runScenario<W extends { t: TestApp }>(scenario: ApiScenario<W>, world: W): Promise<void> {
  await scenario.before?.(world);
  const response = await world.t.request(scenario.method, resolve(scenario.url, world), {
    key: scenario.key === undefined ? undefined : resolve(scenario.key, world),
    headers: scenario.headers === undefined ? undefined : resolve(scenario.headers, world),
    body: scenario.body === undefined ? undefined : resolve(scenario.body, world),
  });
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json") && text !== "";
  const body: unknown = isJson ? JSON.parse(text) : text;
  expect({ status: response.status, body }).toMatchObject({ status: scenario.expectedStatus });
  if (scenario.expectedBody !== undefined) expect(body).toEqual(resolve(scenario.expectedBody, world));
  for (const part of resolve(scenario.expectedContent ?? [], world)) expect(text).toContain(part);
  for (const part of resolve(scenario.notExpectedContent ?? [], world)) expect(text).not.toContain(part);
  for (const [name, wanted] of Object.entries(resolve(scenario.expectedHeaders ?? {}, world))) {
    const actual = response.headers.get(name);
    if (wanted === null) expect(actual).toBeNull();
    else if (wanted instanceof RegExp) expect(actual ?? "").toMatch(wanted);
    else expect(actual).toBe(wanted);
  }
  await scenario.after?.(world, response, body);
}

/** Registers one test per scenario, each on a fresh database made by `makeWorld`. */
export function runScenarios<W extends { t: TestApp }>(title: string, makeWorld: (t: TestApp) => Promise<W>, scenarios: ApiScenario<W>[]): void {
  describe(title, () => {
    for (const scenario of scenarios) {
      test(scenario.name, async () => {
        const t = await testApp();
        try {
          await runScenario(scenario, await makeWorld(t));
        } finally {
          t.close();
        }
      });
    }
  });
}

/** The API's error body (docs/api.md, "Errors"), exactly: a code, some sentence, and the field when one is at fault. */
export function apiError(code: string, field?: string) {
  const error = { code, message: expect.any(String), ...(field ? { field } : {}) };
  return { error, errors: [error] };
}

/** ISO 8601 UTC with milliseconds, as every timestamp must be. */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const isoTime = () => expect.stringMatching(ISO_MS);
