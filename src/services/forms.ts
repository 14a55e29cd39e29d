import { and, desc, eq, or, sql } from "drizzle-orm";
import { MAX_ROUTES, shownRoutes, storedRoutes, whenSchema } from "./outbox/conditions.ts";
import type { Db, Store } from "../db/client.ts";
import { memoized, preparedOn } from "../db/prepared.ts";
import { formSettingsStamp, forms, type FormRow } from "../db/schema.ts";
import {
  CAPTCHA_PROVIDERS,
  type CaptchaProvider,
  DEFAULT_SPAM_RETENTION_DAYS,
  type FieldRule,
  type Form,
  type Mode,
  type OtherFields,
  type Principal,
  type SpamRules,
} from "../domain/types.ts";
import { ApiError } from "../errors.ts";
import { newId } from "../lib/ids.ts";
import { randomLower36 } from "../lib/random.ts";
import { iso } from "../lib/time.ts";
import { allowedDomains, email, formName, httpUrl, lazySchema, parseBody, retentionDays, slug, type Zod } from "../lib/validate.ts";
import { fieldRules, otherFields } from "./submissions/fields.ts";
import { recordActivity } from "./people/activity.ts";
import { confirmationOf, confirmationSchema, storedConfirmation } from "./outbox/confirmations.ts";
import { pageOf, pageSchema, storedPage } from "./form-page.ts";
import { COMPLEXITY_RANGE, DEFAULT_COMPLEXITY, DEFAULT_FILTER_THRESHOLD } from "../domain/limits.ts";
import { formChangeSummary } from "./form-changes.ts";
import { rulesColumn, spamRulesSchema } from "./spam/rules.ts";
import { paymentAllowed, paymentOf, paymentSchema, storedPayment } from "./payments/form-payment.ts";

const complexityMessage = `captcha.complexity must be a whole number from ${COMPLEXITY_RANGE.min} to ${COMPLEXITY_RANGE.max}.`;
const altcha = (z: Zod) =>
  z.strictObject(
    {
      provider: z.literal("altcha"),
      complexity: z
        .number({ error: complexityMessage })
        .int(complexityMessage)
        .min(COMPLEXITY_RANGE.min, complexityMessage)
        .max(COMPLEXITY_RANGE.max, complexityMessage)
        .optional(),
    },
    { error: 'captcha must be {provider: "altcha", complexity?} or null.' },
  );

const captcha = (z: Zod) =>
  z.discriminatedUnion("provider", [hostedCaptcha(z), altcha(z)], {
    // Only a provider that is none of these reaches this message: a known one reports its own fields.
    error: `captcha.provider must be one of ${CAPTCHA_PROVIDERS.join(", ")}, altcha.`,
  });

const spamFilter = (z: Zod) =>
  z.strictObject(
    {
      enabled: z.boolean({ error: "spamFilter.enabled must be true or false." }).optional(),
      threshold: z
        .number({ error: "spamFilter.threshold must be a number from 0 to 1." })
        .min(0, "spamFilter.threshold must be a number from 0 to 1.")
        .max(1, "spamFilter.threshold must be a number from 0 to 1.")
        .optional(),
    },
    { error: "spamFilter must be {enabled?, threshold?}." },
  );

const hostedCaptcha = (z: Zod) =>
  z.strictObject(
    {
      provider: z.enum(CAPTCHA_PROVIDERS, { error: `captcha.provider must be one of ${CAPTCHA_PROVIDERS.join(", ")}, or altcha.` }),
      secret: z
        .string({ error: "captcha.secret must be the provider's secret key, a string." })
        .trim()
        .min(1, "captcha.secret must be the provider's secret key.")
        .max(500, "captcha.secret must be at most 500 characters.")
        .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), "captcha.secret must not contain control characters.")
        .meta({ writeOnly: true })
        // Left out on an update that keeps the provider, the stored secret stays (see captchaColumns).
        .optional(),
      siteKey: z
        .string({ error: "captcha.siteKey must be the provider's site key (public), a string." })
        .trim()
        .min(1, "captcha.siteKey must not be empty.")
        .max(500, "captcha.siteKey must be at most 500 characters.")
        .regex(/^[\w.:-]+$/, "captcha.siteKey must be the provider's site key: letters, digits, dots, dashes.")
        .nullish(),
    },
    { error: "captcha must be {provider, secret, siteKey?} or null." },
  );

/** The body of POST /api/forms (the OpenAPI document is generated from it too). */
export const createSchema = lazySchema((z) =>
  z.strictObject({
    name: formName(z),
    slug: slug(z).optional(),
    isActive: z.boolean({ error: "isActive must be true or false." }).optional(),
    notificationEmail: email(z).nullish(),
    redirectUrl: httpUrl(z, "redirectUrl").nullish(),
    allowedDomains: allowedDomains(z).nullish(),
    fileUploads: z.boolean({ error: "fileUploads must be true or false." }).optional(),
    retentionDays: retentionDays(z, "retentionDays").nullish(),
    spamRetentionDays: retentionDays(z, "spamRetentionDays").nullish(),
    captcha: captcha(z).nullish(),
    fields: fieldRules(z).nullish(),
    otherFields: otherFields(z).optional(),
    confirmation: confirmationSchema(z).nullish(),
    spamRules: spamRulesSchema(z).nullish(),
    payment: paymentSchema(z).nullish(),
    spamFilter: spamFilter(z).optional(),
    page: pageSchema(z).nullish(),
    notificationRoutes: z
      .array(z.strictObject({ to: email(z), when: whenSchema(z, "notificationRoutes.when") }), { error: "notificationRoutes must be a list of {to, when}." })
      .max(MAX_ROUTES, `notificationRoutes holds at most ${MAX_ROUTES} routes.`)
      .nullish(),
  }),
);

/** The body of PATCH /api/forms/{id}. */
export const updateSchema = lazySchema(async (z) => (await createSchema()).partial().extend({ name: formName(z).optional() }));

const SLUG_LENGTH = 12;
/** Slugs remembered at most (unknown ones too, so that a scan of made-up slugs reads each once per batch). */
const SLUG_CACHE_SIZE = 1000;

// Parsed once per distinct text, not per request; frozen because every caller shares the one array.
const parseList = memoized((text: string) => Object.freeze(JSON.parse(text) as string[]) as string[]);

type CaptchaInput =
  | { provider: CaptchaProvider; secret?: string | undefined; siteKey?: string | null | undefined }
  | { provider: "altcha"; complexity?: number | undefined }
  | null;

/**
 * The columns of a captcha setting: a provider's secret and site key, or ALTCHA's complexity (formsvc keeps its
 * own key). A provider's secret may be left out only when `before` has that provider: its secret stays.
 */
function captchaColumns(
  input: CaptchaInput,
  before: Pick<FormRow, "captchaProvider" | "captchaSecret"> | null = null,
): Pick<FormRow, "captchaProvider" | "captchaSecret" | "captchaComplexity" | "captchaSiteKey"> {
  if (!input) return { captchaProvider: null, captchaSecret: null, captchaComplexity: null, captchaSiteKey: null };
  if (input.provider === "altcha") return { captchaProvider: "altcha", captchaSecret: null, captchaComplexity: input.complexity ?? null, captchaSiteKey: null };
  const secret = input.secret ?? (before?.captchaProvider === input.provider ? before.captchaSecret : null);
  if (!secret) throw new ApiError("invalid_body", "captcha.secret is required: the provider's secret key.", { field: "captcha.secret" });
  return { captchaProvider: input.provider, captchaSecret: secret, captchaComplexity: null, captchaSiteKey: input.siteKey ?? null };
}

/** The captcha as the form object shows it: never a secret; ALTCHA's complexity with its default filled in. */
function captchaOf(row: FormRow): Form["captcha"] {
  if (!row.captchaProvider) return null;
  if (row.captchaProvider === "altcha") return { provider: "altcha", complexity: row.captchaComplexity ?? DEFAULT_COMPLEXITY };
  return { provider: row.captchaProvider as CaptchaProvider, siteKey: row.captchaSiteKey };
}

/** The form's public answers to a submission: where it may redirect, which origins it accepts. */
export const domainsOf = (row: Pick<FormRow, "allowedDomains">): string[] => parseList(row.allowedDomains);
const parseRules = memoized((text: string) => Object.freeze(JSON.parse(text) as FieldRule[]) as FieldRule[]);
/** The fields the form declares, or null when it declares none. */
export const rulesOf = (row: Pick<FormRow, "fieldRules">): FieldRule[] | null => (row.fieldRules ? parseRules(row.fieldRules) : null);

/**
 * Every field name seen in the form's submissions, in order of first appearance, except that the fields the
 * form declares come first, in their declared order (so exports list them as the owner laid them out).
 */
export function fieldsOf(row: Pick<FormRow, "fields" | "fieldRules">): string[] {
  const seen = parseList(row.fields);
  const rules = rulesOf(row);
  if (!rules) return seen;
  const declared = rules.map((rule) => rule.name).filter((name) => seen.includes(name));
  return [...declared, ...seen.filter((name) => !declared.includes(name))];
}

const bySlug = preparedOn((db) =>
  db
    .select()
    .from(forms)
    .where(eq(forms.slug, sql.placeholder("slug")))
    .prepare(),
);
const settingsStamp = preparedOn((db) => db.select({ stamp: formSettingsStamp.stamp }).from(formSettingsStamp).prepare());
const byRef = preparedOn((db) =>
  db
    .select()
    .from(forms)
    .where(
      and(
        eq(forms.accountId, sql.placeholder("accountId")),
        eq(forms.mode, sql.placeholder("mode")),
        or(eq(forms.id, sql.placeholder("ref")), eq(forms.slug, sql.placeholder("ref"))),
      ),
    )
    .prepare(),
);

/** Forms: CRUD scoped to the acting account and mode, and the public look-up by slug. */
export function formsService(store: Store, urls: { submitUrl: () => string }, options: { paymentsConfigured?: () => boolean } = {}) {
  const checkPayment = (payment: unknown) => paymentAllowed(payment, options.paymentsConfigured?.() ?? false);
  const toForm = (row: FormRow): Form => ({
    id: row.id,
    name: row.name,
    slug: row.slug,
    mode: row.mode as Mode,
    isActive: row.isActive,
    submissionCount: row.submissionCount,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    notificationEmail: row.notificationEmail,
    redirectUrl: row.redirectUrl,
    allowedDomains: domainsOf(row),
    captcha: captchaOf(row),
    submitUrl: `${urls.submitUrl()}/f/${row.slug}`,
    fileUploads: row.fileUploads,
    retentionDays: row.retentionDays,
    spamRetentionDays: row.spamRetentionDays,
    fields: rulesOf(row) ?? [],
    otherFields: row.otherFields as OtherFields,
    confirmation: confirmationOf(row),
    spamRules: row.spamRules ? (JSON.parse(row.spamRules) as SpamRules) : null,
    spamFilter: { enabled: row.spamFilterEnabled, threshold: row.spamFilterThreshold ?? DEFAULT_FILTER_THRESHOLD },
    page: pageOf(row),
    notificationRoutes: shownRoutes(row.notificationRoutes),
    payment: paymentOf(row),
  });

  // Shared, read-only rows: callers never change a FormRow they are given. Their settings are those of the
  // stamp they were read at; their counters are not kept up to date (the public endpoint does not read them).
  const bySlugCache = new Map<string, FormRow | null>();
  let bySlugVersion = -1;
  let bySlugStamp = -1;

  const scoped = (principal: Principal) => and(eq(forms.accountId, principal.accountId), eq(forms.mode, principal.mode));

  async function findRow(db: Db, principal: Principal, ref: string): Promise<FormRow> {
    const row: FormRow | undefined = await byRef(db).get({ accountId: principal.accountId, mode: principal.mode, ref });
    // Another account's or the other mode's form is not found: its existence is not ours to tell.
    if (!row) throw new ApiError("form_not_found", `No form ${ref}.`);
    return row;
  }

  async function assertSlugFree(tx: Db, wanted: string, exceptId?: string): Promise<void> {
    const [clash] = await tx.select({ id: forms.id }).from(forms).where(eq(forms.slug, wanted));
    if (clash && clash.id !== exceptId) throw new ApiError("slug_taken", `The slug "${wanted}" is taken; choose another.`, { field: "slug" });
  }

  async function freeSlug(tx: Db): Promise<string> {
    for (;;) {
      const candidate = randomLower36(SLUG_LENGTH);
      const [clash] = await tx.select({ id: forms.id }).from(forms).where(eq(forms.slug, candidate));
      if (!clash) return candidate;
    }
  }

  return {
    toForm,

    /** The form's row, for services that work below the API shape (submissions). */
    findRow: (principal: Principal, ref: string) => findRow(store.db, principal, ref),

    /**
     * The form with this public slug, whatever its account (the public endpoint), or null. Answers are
     * remembered until a form's settings change, by this process or another (the local CLI): after a commit
     * to the database, the settings stamp is read once (a form made, changed or deleted raises it; the writes
     * of posts do not), so that posts under load read their form once, not once each, and never a stale one.
     */
    async findBySlug(formSlug: string): Promise<FormRow | null> {
      const version = store.dataVersion?.();
      if (version !== undefined) {
        if (version !== bySlugVersion) {
          bySlugVersion = version;
          const stamp = (await settingsStamp(store.db).get())?.stamp ?? -1;
          if (stamp !== bySlugStamp) {
            bySlugCache.clear();
            bySlugStamp = stamp;
          }
        }
        if (bySlugCache.size >= SLUG_CACHE_SIZE) bySlugCache.clear();
        const cached = bySlugCache.get(formSlug);
        if (cached !== undefined) return cached;
      }
      const row: FormRow | null = (await bySlug(store.db).get({ slug: formSlug })) ?? null;
      if (version !== undefined) bySlugCache.set(formSlug, row);
      return row;
    },

    async list(principal: Principal): Promise<Form[]> {
      const rows = await store.db.select().from(forms).where(scoped(principal)).orderBy(desc(forms.createdAt), desc(forms.id));
      return rows.map(toForm);
    },

    /** The principal's form rows, newest first, for views that show the counters the form object leaves out (unread). */
    async listRows(principal: Principal): Promise<FormRow[]> {
      return store.db.select().from(forms).where(scoped(principal)).orderBy(desc(forms.createdAt), desc(forms.id));
    },

    async get(principal: Principal, ref: string): Promise<Form> {
      return toForm(await findRow(store.db, principal, ref));
    },

    async create(principal: Principal, body: unknown): Promise<Form> {
      const input = parseBody(await createSchema(), body);
      checkPayment(input.payment);
      // The form object is made after the write: its submitUrl follows this request's public address, and the
      // write may run in a batch that another request started.
      const created = await store.write(async (tx) => {
        if (input.slug) await assertSlugFree(tx, input.slug);
        const now = Date.now();
        const row = {
          id: newId("form"),
          accountId: principal.accountId,
          mode: principal.mode,
          name: input.name,
          slug: input.slug ?? (await freeSlug(tx)),
          isActive: input.isActive ?? true,
          notificationEmail: input.notificationEmail ?? null,
          redirectUrl: input.redirectUrl ?? null,
          allowedDomains: JSON.stringify(input.allowedDomains ?? []),
          fileUploads: input.fileUploads ?? false,
          retentionDays: input.retentionDays ?? null,
          // Absent means the default of 30 days; null, given on purpose, keeps spam for ever.
          spamRetentionDays: input.spamRetentionDays === undefined ? DEFAULT_SPAM_RETENTION_DAYS : input.spamRetentionDays,
          ...captchaColumns(input.captcha ?? null),
          fieldRules: input.fields?.length ? JSON.stringify(input.fields) : null,
          otherFields: input.otherFields ?? "keep",
          confirmation: storedConfirmation(input.confirmation) ?? null,
          spamRules: rulesColumn(input.spamRules),
          spamFilterEnabled: input.spamFilter?.enabled ?? true,
          spamFilterThreshold: input.spamFilter?.threshold ?? null,
          page: storedPage(input.page) ?? null,
          notificationRoutes: storedRoutes(input.notificationRoutes),
          payment: storedPayment(input.payment) ?? null,
          createdAt: now,
          updatedAt: now,
        };
        const [inserted] = await tx.insert(forms).values(row).returning();
        await recordActivity(tx, principal, "form.create", row.id, `Created ${row.mode} form "${row.name}".`);
        return inserted!;
      });
      return toForm(created);
    },

    async update(principal: Principal, ref: string, body: unknown): Promise<Form> {
      const input = parseBody(await updateSchema(), body);
      checkPayment(input.payment);
      const changed = await store.write(async (tx) => {
        const row = await findRow(tx, principal, ref);
        if (input.slug !== undefined) await assertSlugFree(tx, input.slug, row.id);
        const wanted: Partial<FormRow> = {
          name: input.name,
          slug: input.slug,
          isActive: input.isActive,
          notificationEmail: input.notificationEmail,
          redirectUrl: input.redirectUrl,
          allowedDomains: input.allowedDomains === undefined ? undefined : JSON.stringify(input.allowedDomains ?? []),
          fileUploads: input.fileUploads,
          retentionDays: input.retentionDays,
          spamRetentionDays: input.spamRetentionDays,
          ...(input.captcha === undefined ? {} : captchaColumns(input.captcha, row)),
          fieldRules: input.fields === undefined ? undefined : input.fields?.length ? JSON.stringify(input.fields) : null,
          otherFields: input.otherFields,
          confirmation: storedConfirmation(input.confirmation),
          spamRules: input.spamRules === undefined ? undefined : rulesColumn(input.spamRules),
          spamFilterEnabled: input.spamFilter?.enabled,
          spamFilterThreshold: input.spamFilter?.threshold,
          page: storedPage(input.page),
          notificationRoutes: input.notificationRoutes === undefined ? undefined : storedRoutes(input.notificationRoutes),
          payment: storedPayment(input.payment),
        };
        // Only what really changes is written; a patch that changes nothing leaves updatedAt alone.
        const changes = Object.fromEntries(
          Object.entries(wanted).filter(([column, value]) => value !== undefined && value !== row[column as keyof FormRow]),
        ) as Partial<FormRow>;
        if (Object.keys(changes).length === 0) return row;
        const [updated] = await tx
          .update(forms)
          .set({ ...changes, updatedAt: Date.now() })
          .where(eq(forms.id, row.id))
          .returning();
        await recordActivity(tx, principal, "form.update", row.id, formChangeSummary(row, changes));
        return updated!;
      });
      return toForm(changed);
    },

    /** Removes the form with all its submissions and form-level keys, in one transaction. */
    async remove(principal: Principal, ref: string): Promise<void> {
      await store.write(async (tx) => {
        const row = await findRow(tx, principal, ref);
        await tx.delete(forms).where(eq(forms.id, row.id));
        await recordActivity(tx, principal, "form.delete", row.id, `Deleted form "${row.name}" and its ${row.submissionCount} submissions.`);
      });
    },
  };
}

export type FormsService = ReturnType<typeof formsService>;
