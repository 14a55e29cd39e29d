import { expect } from "bun:test";
import type { TestAccount, TestApp } from "../helpers/app.ts";
import { BASE } from "../helpers/app.ts";
import { operator } from "../../src/services/principal.ts";
import { isoTime } from "./scenario.ts";

export interface FormRef {
  id: string;
  slug: string;
}

/**
 * What most API tests start from: an account with a live admin key and a live form holding one submission,
 * a test-mode form and key in the same account, and another account with its own form and submission.
 */
export interface World {
  t: TestApp;
  account: TestAccount;
  /** A live key with every permission. */
  admin: string;
  form: FormRef;
  submission: string;
  /** A test-mode admin key and form of the same account. */
  testAdmin: string;
  testForm: FormRef;
  testSubmission: string;
  other: { admin: string; form: FormRef; submission: string };
}

/** Stores a submission as the public endpoint would, and returns its id. */
export async function receive(t: TestApp, form: FormRef, data: Record<string, unknown>, isSpam = false): Promise<string> {
  return (await t.services.submissions.receive(form.id, data, { isSpam })).id;
}

/** Sets a submission's flags through the service, as the owner would. */
export async function flag(t: TestApp, accountId: string, form: FormRef, submissionId: string, flags: Record<string, boolean>): Promise<void> {
  await t.services.submissions.update(operator(accountId, "live"), form.id, submissionId, flags);
}

/** Builds the standard world on a fresh app. */
export async function makeWorld(t: TestApp): Promise<World> {
  const account = await t.account("acme");
  const form = await account.form({ name: "Contact" });
  const submission = await receive(t, form, { email: "ann@example.com", message: "Hello" });
  const testForm = await account.form({ name: "Staging contact" }, "test");
  const testSubmission = await receive(t, testForm, { email: "test@example.com" });
  const otherAccount = await t.account("globex");
  const otherForm = await otherAccount.form({ name: "Their form" });
  const otherSubmission = await receive(t, otherForm, { email: "eve@example.com" });
  return {
    t,
    account,
    admin: await account.key(),
    form,
    submission,
    testAdmin: await account.key({ type: "test" }),
    testForm,
    testSubmission,
    other: { admin: await otherAccount.key(), form: otherForm, submission: otherSubmission },
  };
}

/** The whole form object (docs/api.md, "The form object"), with the defaults of a fresh form; `overrides` replace fields. */
export function formObject(overrides: Record<string, unknown> = {}) {
  const slug = (overrides.slug as string | undefined) ?? expect.stringMatching(/^[a-z0-9]{10,}$/);
  return {
    id: expect.stringMatching(/^frm_[0-9a-z]+$/),
    name: "Contact",
    slug,
    mode: "live",
    isActive: true,
    submissionCount: 0,
    createdAt: isoTime(),
    updatedAt: isoTime(),
    notificationEmail: null,
    redirectUrl: null,
    allowedDomains: [],
    captcha: null,
    submitUrl: typeof slug === "string" ? `${BASE}/f/${slug}` : expect.stringMatching(new RegExp(`^${BASE}/f/[a-z0-9]{10,}$`)),
    fileUploads: false,
    retentionDays: null,
    spamRetentionDays: 30,
    fields: [],
    otherFields: "keep",
    confirmation: null,
    spamRules: null,
    spamFilter: { enabled: true, threshold: 0.55 },
    page: { enabled: false, title: null, description: null, logoUrl: null, accentColor: null, submitLabel: null, thankYouMessage: null, language: null },
    notificationRoutes: [],
    payment: null,
    ...overrides,
  };
}

/** A submission object (docs/api.md, "The submission object"). */
export function submissionObject(
  id: unknown,
  data: Record<string, unknown>,
  flags: Partial<Record<"isRead" | "isStarred" | "isSpam", boolean>> & { spamReason?: string | null } = {},
) {
  return { id, data, createdAt: isoTime(), isRead: false, isStarred: false, isSpam: false, spamReason: null, ...flags };
}

/** GETs `path` with `key` and returns status and parsed body. */
export async function getJson(world: World, path: string, key = world.admin): Promise<{ status: number; body: any }> {
  const response = await world.t.request("GET", path, { key });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}
