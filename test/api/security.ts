import { describe, expect, test } from "bun:test";
import { routerPath, type Operation } from "../../src/api/operation.ts";
import { testApp, type TestApp } from "../helpers/app.ts";
import { UploadedFile } from "../../src/lib/files.ts";
import { generateKey } from "../../src/lib/keys.ts";
import { PERMISSIONS, type Permission } from "../../src/domain/types.ts";
import { operator } from "../../src/services/principal.ts";
import { apiError } from "./scenario.ts";
import { makeWorld, type World } from "./world.ts";

/** A management route and what its declaration says it needs: the permission of docs/api.md ("Permissions"), the keys it takes, a body, and its success status. */
export interface ProtectedRoute {
  method: string;
  /** As registered (`/api/forms/:id`): the name of its tests. */
  path: string;
  /** As declared (`/api/forms/{id}`): each parameter is filled in from the world by PATH_VALUES. */
  declaredPath: string;
  permission: Permission;
  /** A form-level key of the form in the path may call it (the operation's scope is `form`). */
  formKeys: boolean;
  /** The declared example body, which the operation must accept in the world (its form ids made the world's). */
  body?: Record<string, unknown>;
  okStatus: number;
}

/** Every operation that takes a key, as its declaration gives it: the permission, who may call it, its example body, its success. */
export function protectedRoutes(operations: readonly Operation[]): ProtectedRoute[] {
  return operations
    .filter((declared) => declared.scope !== "public")
    .map((declared) => ({
      method: declared.method,
      path: routerPath(declared.path),
      declaredPath: declared.path,
      permission: declared.permission!,
      formKeys: declared.scope === "form",
      body: declared.body?.example,
      okStatus: declared.ok.status,
    }));
}

/** The standard world plus keys that the key routes can address. */
interface Guarded extends World {
  spareKeyId: string;
  otherAccountKeyId: string;
  testModeKeyId: string;
  /** A submission with an uploaded file, on each of our form, the other account's and the other mode's. */
  withFile: Record<Target, { submission: string; file: string }>;
  /** A webhook on each target's form, and a delivery of it. */
  webhooks: Record<Target, { id: string; deliveryId: string }>;
  /** A destination on each target's form. */
  destinations: Record<Target, string>;
}

/** Stores a submission carrying one file on `formId` and returns its id and the file's. */
async function submissionWithFile(t: TestApp, formId: string): Promise<{ submission: string; file: string }> {
  const stored = await t.services.submissions.receive(
    formId,
    { cv: new UploadedFile("cv.pdf", "application/pdf", new Uint8Array([37, 80, 68, 70])) },
    { isSpam: false },
  );
  return { submission: stored.id, file: (stored.data.cv as { file: string }).file };
}

/** A webhook on `form` and the delivery of a submission received after it. */
async function webhookOn(t: TestApp, accountId: string, mode: "live" | "test", formId: string): Promise<{ id: string; deliveryId: string }> {
  const acting = operator(accountId, mode);
  const webhook = await t.services.webhooks.create(acting, formId, { url: "https://hooks.example.com/formsvc" });
  await t.services.submissions.receive(formId, { email: "hook@example.com" }, { isSpam: false });
  const { deliveries } = await t.services.webhooks.deliveries(acting, formId, webhook.id, { limit: 1, offset: 0 });
  return { id: webhook.id, deliveryId: deliveries[0]!.id };
}

async function guardedWorld(t: TestApp): Promise<Guarded> {
  const w = await makeWorld(t);
  const live = operator(w.account.id, "live");
  const spare = await t.services.keys.create(live, { name: "spare" });
  const otherAccountId = (await t.services.accounts.list()).find((a) => a.name === "globex")!.id;
  const otherAccountKey = await t.services.keys.create(operator(otherAccountId, "live"), {});
  const testModeKey = await t.services.keys.create(operator(w.account.id, "test"), {});
  const withFile = {
    own: await submissionWithFile(t, w.form.id),
    otherAccount: await submissionWithFile(t, w.other.form.id),
    otherMode: await submissionWithFile(t, w.testForm.id),
  };
  const webhooks = {
    own: await webhookOn(t, w.account.id, "live", w.form.id),
    otherAccount: await webhookOn(t, otherAccountId, "live", w.other.form.id),
    otherMode: await webhookOn(t, w.account.id, "test", w.testForm.id),
  };
  const destinationOn = async (accountId: string, mode: "live" | "test", formId: string) =>
    (await t.services.destinations.create(operator(accountId, mode), formId, { type: "ntfy", config: { topic: "security" } })).id;
  const destinations = {
    own: await destinationOn(w.account.id, "live", w.form.id),
    otherAccount: await destinationOn(otherAccountId, "live", w.other.form.id),
    otherMode: await destinationOn(w.account.id, "test", w.testForm.id),
  };
  return { ...w, spareKeyId: spare.id, otherAccountKeyId: otherAccountKey.id, testModeKeyId: testModeKey.id, withFile, webhooks, destinations };
}

type Target = "own" | "otherAccount" | "otherMode";

/**
 * What each path parameter names in the world, for our own resources or another account's or mode's: a form,
 * one of its submissions (the one with a file, on a file's path), a key, a webhook of the form and a delivery of it.
 */
const PATH_VALUES: Record<string, (w: Guarded, target: Target, path: string) => string> = {
  id: (w, target) => ({ own: w.form, otherAccount: w.other.form, otherMode: w.testForm })[target].id,
  submissionId: (w, target, path) =>
    path.includes("{fileId}") ? w.withFile[target].submission : { own: w.submission, otherAccount: w.other.submission, otherMode: w.testSubmission }[target],
  fileId: (w, target) => w.withFile[target].file,
  keyId: (w, target) => ({ own: w.spareKeyId, otherAccount: w.otherAccountKeyId, otherMode: w.testModeKeyId })[target],
  webhookId: (w, target) => w.webhooks[target].id,
  deliveryId: (w, target) => w.webhooks[target].deliveryId,
  destinationId: (w, target) => w.destinations[target],
};

/** The route's address in the world, pointing at our own resources or at another account's or mode's. */
function urlOf(route: ProtectedRoute, w: Guarded, target: Target = "own"): string {
  return route.declaredPath.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = PATH_VALUES[name];
    if (!value) throw new Error(`the security world has nothing for the path parameter ${name}: give it a value in PATH_VALUES`);
    return encodeURIComponent(value(w, target, route.declaredPath));
  });
}

/** The example body with the example's form ids (frm_…) made the world's form: an example speaks of a form of the document's. */
function bodyOf(route: ProtectedRoute, w: Guarded): unknown {
  if (route.body === undefined) return undefined;
  return JSON.parse(JSON.stringify(route.body), (_, value: unknown) => (typeof value === "string" && /^frm_[0-9a-z]+$/.test(value) ? w.form.id : value));
}

const addressesForm = (route: ProtectedRoute) => route.declaredPath.includes("{id}");
const addressesResource = (route: ProtectedRoute) => route.declaredPath.includes("{");

async function call(w: Guarded, route: ProtectedRoute, options: { key?: string; authorization?: string; target?: Target } = {}) {
  const headers: Record<string, string> = options.authorization === undefined ? {} : { authorization: options.authorization };
  const response = await w.t.request(route.method, urlOf(route, w, options.target), { key: options.key, headers, body: bodyOf(route, w) });
  const text = await response.text();
  const isJson = (response.headers.get("content-type") ?? "").startsWith("application/json") && text !== "";
  return { status: response.status, body: isJson ? (JSON.parse(text) as unknown) : text, response };
}

/** A live key of the account, or one bound to a live form, with exactly these permissions. */
async function mint(w: Guarded, permissions: Permission[], formId?: string) {
  return w.t.services.keys.create(operator(w.account.id, "live"), formId ? { type: "form", formId, permissions } : { permissions });
}
const keyWith = async (w: Guarded, permissions: Permission[], formId?: string) => (await mint(w, permissions, formId)).key;

const everyPermissionBut = (needed: Permission) => PERMISSIONS.filter((p) => p !== needed && p !== "admin");

/** Runs `check` on a fresh world (an app of `operations`, the API's by default), closing it whatever happens. */
function inAppWorld(name: string, check: (w: Guarded) => Promise<void>, operations?: readonly Operation[]): void {
  test(name, async () => {
    const t = await testApp({ operations });
    try {
      await check(await guardedWorld(t));
    } finally {
      t.close();
    }
  });
}

/**
 * The security cases every protected route must pass (Unkey's runCommonRouteTests): who is refused with
 * 401, 403 or 404, and that a key with just the route's permission is let in.
 */
export function runCommonRouteTests(route: ProtectedRoute, operations?: readonly Operation[]): void {
  const inWorld = (name: string, check: (w: Guarded) => Promise<void>) => inAppWorld(name, check, operations);
  describe(`${route.method} ${route.path}: security`, () => {
    inWorld("without a key: 401 unauthorized with WWW-Authenticate: Bearer", async (w) => {
      const answer = await call(w, route);
      expect({ status: answer.status, body: answer.body }).toEqual({ status: 401, body: apiError("unauthorized") });
      expect(answer.response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
    });

    inWorld("a malformed Authorization header or key: 401", async (w) => {
      const good = await keyWith(w, ["admin"]);
      const tampered = good.slice(0, -1) + (good.endsWith("A") ? "B" : "A"); // the checksum no longer holds
      for (const authorization of ["Basic dXNlcjpwYXNz", "Bearer", `Bearer ${good} extra`, "Bearer sk_live_short", `Bearer ${tampered}`, `Token ${good}`]) {
        const answer = await call(w, route, { authorization });
        expect({ authorization, status: answer.status, body: answer.body }).toEqual({ authorization, status: 401, body: apiError("unauthorized") });
        expect(answer.response.headers.get("www-authenticate")).toMatch(/^Bearer\b/);
      }
    });

    inWorld("a well-formed key that was never stored: 401", async (w) => {
      for (const key of [generateKey("live"), generateKey("test"), generateKey("form")]) {
        expect(await call(w, route, { key })).toMatchObject({ status: 401, body: apiError("unauthorized") });
      }
    });

    inWorld("a revoked key: 401 at once", async (w) => {
      const { key, id } = await mint(w, ["admin"]);
      expect((await call(w, route, { key })).status).not.toBe(401);
      await w.t.services.keys.revoke(operator(w.account.id, "live"), id);
      expect(await call(w, route, { key })).toMatchObject({ status: 401, body: apiError("unauthorized") });
    });

    inWorld(`a key without ${route.permission}: 403 forbidden`, async (w) => {
      const key = await keyWith(w, everyPermissionBut(route.permission));
      expect(await call(w, route, { key })).toMatchObject({ status: 403, body: apiError("forbidden") });
    });

    inWorld(`a key with just ${route.permission} is let in`, async (w) => {
      const key = await keyWith(w, [route.permission]);
      expect((await call(w, route, { key })).status).toBe(route.okStatus);
    });

    if (route.permission !== "admin") {
      inWorld("an admin key holds every permission", async (w) => {
        expect((await call(w, route, { key: w.admin })).status).toBe(route.okStatus);
      });
    }

    if (addressesResource(route)) {
      const notFound = addressesForm(route) ? "form_not_found" : "not_found";
      inWorld(`another account's resource: 404 ${notFound}, as if it did not exist`, async (w) => {
        const answer = await call(w, route, { key: w.admin, target: "otherAccount" });
        expect({ status: answer.status, body: answer.body }).toEqual({ status: 404, body: apiError(notFound) });
      });

      inWorld(`the other mode's resource: 404 ${notFound}`, async (w) => {
        const liveOnTest = await call(w, route, { key: w.admin, target: "otherMode" });
        expect({ status: liveOnTest.status, body: liveOnTest.body }).toEqual({ status: 404, body: apiError(notFound) });
        if (addressesForm(route)) {
          const testOnLive = await call(w, route, { key: w.testAdmin });
          expect({ status: testOnLive.status, body: testOnLive.body }).toEqual({ status: 404, body: apiError(notFound) });
        }
      });
    }

    if (route.formKeys) {
      inWorld(`a form-level key with ${route.permission} is let in on its own form`, async (w) => {
        const key = await keyWith(w, [route.permission], w.form.id);
        expect((await call(w, route, { key })).status).toBe(route.okStatus);
      });

      inWorld("a form-level key of another form: 403 forbidden", async (w) => {
        const elsewhere = await w.account.form({ name: "Elsewhere" });
        const key = await keyWith(w, [...PERMISSIONS], elsewhere.id);
        expect(await call(w, route, { key })).toMatchObject({ status: 403, body: apiError("forbidden") });
      });

      if (route.permission !== "read") {
        inWorld("a form-level key made without permissions can only read: 403", async (w) => {
          const key = await w.account.key({ type: "form", formId: w.form.id });
          expect(await call(w, route, { key })).toMatchObject({ status: 403, body: apiError("forbidden") });
        });
      }
    } else {
      inWorld("a form-level key, even with every permission, is outside its form here: 403", async (w) => {
        const key = await keyWith(w, [...PERMISSIONS], w.form.id);
        expect(await call(w, route, { key })).toMatchObject({ status: 403, body: apiError("forbidden") });
      });
    }
  });
}
