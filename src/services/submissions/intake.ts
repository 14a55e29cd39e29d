// The intake: every rule of a public post, in the order docs/api.md gives ("Order of checks": form, active, origin, rate limit, then the
// body the route reads, special fields, honeypot, field names, the form's fields, redirect, captcha, then the
// spam rules and the learning filter), for every path that posts to a form: the public endpoint and the
// dashboard's test submission alike. The route only reads the request and writes the answer.
import type { FormRow } from "../../db/schema.ts";
import { ApiError, ClientClosedRequest } from "../../errors.ts";
import { CAPTCHA_TOKEN_FIELDS, defaultCaptchaOptions, verifyCaptcha, type CaptchaOptions } from "../spam/captcha.ts";
import { domainAllowed } from "../../lib/domains.ts";
import { visibleBidi } from "../../lib/files.ts";
import { messagesFor, pickLanguage } from "../../lib/i18n/index.ts";
import { isEmail, isHttpUrl } from "../../lib/validate.ts";
import type { CaptchaProvider, OtherFields, SpamReason } from "../../domain/types.ts";
import { domainsOf, rulesOf, type FormsService } from "../forms.ts";
import { pageOf } from "../form-page.ts";
import { applyFieldRules, MAX_FIELD_NAME } from "./fields.ts";
import { fingerprintOf, idempotencyKeyOf, type IdempotencyService } from "./idempotency.ts";
import type { IdempotencyRequest } from "./write.ts";
import type { SubmissionsService } from "./submissions.ts";
import type { SpamService } from "../spam/verdict.ts";
import { refusedPost } from "./visitor-errors.ts";
import { answerBaseUrl, type PublicUrls } from "../urls.ts";
import { chargeOf } from "../payments/form-payment.ts";
import type { PaymentsService } from "../payments/payments.ts";

/** Fields that steer the submission and are never stored. */
export const SPECIAL_FIELDS = [
  "_next",
  "_subject",
  "_replyto",
  "_cc",
  "_gotcha",
  "_language",
  "g-recaptcha-response",
  "h-captcha-response",
  "cf-turnstile-response",
  "altcha",
];

/** Most fields one submission may have: no form needs more. */
export const MAX_FIELDS = 200;

/** What the server's settings bring to the rules: the rate limit and where captchas are verified. */
export interface IntakePolicy {
  /** 0 when the key may post now, else the seconds to wait. */
  rateLimit(key: string): number;
  captcha?: CaptchaOptions;
}

/** A post to a form, as its route read it. */
export interface Post {
  /** The page it was posted from: its Origin, else its Referer; null when it said neither. */
  origin: string | null;
  /** The client's address. */
  ip: string;
  /** Reads the post's fields: called only once the form, its origin and the rate limit let the post in. */
  readFields(form: FormRow): Promise<Record<string, unknown>>;
  /**
   * A test post by the form's signed-in owner (the dashboard): it comes from no page of the owner's site and no
   * visitor, so the origin, the rate limit and the captcha are not checked; every other rule is.
   */
  byOwner?: boolean;
  /** The post's Idempotency-Key header, as sent; null or absent when it sent none. */
  idempotencyKey?: string | null;
  /** The post's Accept-Language header: the visitor's language when neither `_language` nor the form's page says. */
  acceptLanguage?: string | null;
  /** True once the client's connection is gone: no answer can reach it, so the post is not stored. */
  gone?: () => boolean;
}

/** A post the form took. */
export interface Accepted {
  /** The submission stored: by this post, or by the first post with its Idempotency-Key. */
  submissionId: string;
  /** Where a browser goes next: `_next`, else the form's redirectUrl, else the thank-you page. */
  location: string;
  /** True when `location` is the post's `_next` or the form's redirectUrl, not the default thank-you page. */
  redirected: boolean;
  /** Why it was kept as spam, or null. */
  spamReason: SpamReason | null;
  /** True when the answer is the first post's, given again to a repeat with its Idempotency-Key: nothing was stored. */
  replayed: boolean;
  /** The visitor's language (a catalog's code), which the answer speaks. */
  language: string;
  /** Where the visitor pays, when the form takes a payment (docs/api.md, "Payments"): a browser goes there first. */
  paymentUrl: string | null;
}

/** Form exists (404), is active (403), and the page it was posted from may use it (403). */
function checkForm(form: FormRow | null, post: Post): asserts form is FormRow {
  if (!form) throw new ApiError("form_not_found", "This form does not exist. Check the form's action address.");
  if (!form.isActive) throw new ApiError("form_inactive", "This form is not accepting submissions right now.");
  const domains = domainsOf(form);
  if (!post.byOwner && domains.length > 0 && !domainAllowed(domains, post.origin)) {
    throw new ApiError("origin_not_allowed", "This form does not accept submissions from this website.");
  }
}

/** An address fit for a Location header (isHttpUrl refuses the control characters a header cannot carry), or null. */
function redirectAddress(value: string): string | null {
  return isHttpUrl(value) ? new URL(value).href : null;
}

/** Where a browser goes after its submission: `_next`, else the form's redirectUrl, else the thank-you page. */
function redirectTarget(form: FormRow, next: unknown, thanks: string): string {
  if (next !== undefined && next !== "") {
    const address = typeof next === "string" ? redirectAddress(next) : null;
    if (!address) {
      throw new ApiError("invalid_redirect", "_next must be an absolute http(s) address such as https://example.com/thanks.", { field: "_next" });
    }
    const domains = domainsOf(form);
    if (domains.length > 0 && !domainAllowed(domains, address)) {
      throw new ApiError("invalid_redirect", "_next must point to one of the form's allowed domains.", { field: "_next" });
    }
    return address;
  }
  return (form.redirectUrl && redirectAddress(form.redirectUrl)) || thanks;
}

/**
 * The thank-you page a browser goes to: the form's own when its page is on, else formsvc's; with `_language`
 * when the visitor's browser alone would not choose their language.
 */
function thanksAddress(base: string, form: FormRow, language: string, acceptLanguage: string | null | undefined): string {
  const page = pageOf(form);
  const path = page.enabled && rulesOf(form) ? `/f/${form.slug}/thanks` : "/thanks";
  return `${base}${path}${language === pickLanguage({ form: page.language, acceptLanguage }) ? "" : `?_language=${language}`}`;
}

/**
 * Every field name joins the form's field list (and a CSV column): without a bound, one post of thousands of
 * made-up names would swell the form for good and slow every submission after it.
 */
function checkFieldNames(data: Record<string, unknown>): void {
  const names = Object.keys(data);
  if (names.length > MAX_FIELDS) {
    throw new ApiError("invalid_body", `A submission may have at most ${MAX_FIELDS} fields; this one has ${names.length}.`);
  }
  // Characters are code points, as a person counts them: an emoji is one, not the two UTF-16 units of .length.
  const long = names.find((name) => name.length > MAX_FIELD_NAME && Array.from(name).length > MAX_FIELD_NAME);
  if (long !== undefined) {
    throw new ApiError("invalid_body", `Field names may be at most ${MAX_FIELD_NAME} characters long.`, { field: Array.from(long).slice(0, 40).join("") });
  }
}

/**
 * Checks the form's captcha, if it has one: a missing or refused token is `400 captcha_failed`; a provider that
 * cannot be asked makes the submission spam (`captcha_unverified`), kept and answered as a success, so that
 * an outage loses nothing. Null when the captcha passed or the form has none.
 */
async function checkCaptcha(
  form: FormRow,
  special: Record<string, unknown>,
  ip: string,
  options: CaptchaOptions,
  altcha: SpamService["altcha"],
): Promise<SpamReason | null> {
  if (form.captchaProvider === "altcha") {
    if (await altcha.verify(form, special.altcha)) return null;
    throw new ApiError(
      "captcha_failed",
      "The captcha was not solved, or its solution was already used or expired. Go back, let the captcha finish and send the form again.",
      { field: "altcha" },
    );
  }
  if (!form.captchaProvider || !form.captchaSecret) return null;
  const provider = form.captchaProvider as CaptchaProvider;
  const token = special[CAPTCHA_TOKEN_FIELDS[provider]];
  const refused = new ApiError("captcha_failed", "The captcha was not solved. Go back, complete the captcha and send the form again.", {
    field: CAPTCHA_TOKEN_FIELDS[provider],
  });
  if (typeof token !== "string" || token.trim() === "" || token.length > 4096) throw refused;
  const verdict = await verifyCaptcha(provider, form.captchaSecret, token, ip, options);
  if (verdict === "refused") throw refused;
  return verdict === "unverified" ? "captcha_unverified" : null;
}

/** Most addresses `_cc` may name. */
const MAX_CC = 5;

/** The addresses of `_cc` (one field, comma-separated): at most 5 valid ones, else `400 validation_failed` naming `_cc`. */
function copiedTo(value: unknown): string[] {
  if (value === undefined || value === "") return [];
  const addresses =
    typeof value === "string"
      ? value
          .split(",")
          .map((a) => a.trim())
          .filter(Boolean)
      : null;
  const fault = !addresses
    ? "_cc must be one field of comma-separated email addresses."
    : addresses.length > MAX_CC
      ? `_cc may name at most ${MAX_CC} addresses.`
      : addresses.find((a) => !(a.length <= 254 && isEmail(a)))
        ? "_cc must hold only email addresses such as ann@example.com, separated by commas."
        : null;
  if (fault) throw new ApiError("validation_failed", fault, { field: "_cc", items: [{ field: "_cc", code: "invalid_email", message: fault }] });
  return addresses!;
}

const filled = (value: unknown) => value !== undefined && value !== null && value !== "" && !(Array.isArray(value) && value.every((v) => v === ""));

/** The post's fields split into the special ones, which steer it, and the data, which is stored. */
function splitFields(fields: Record<string, unknown>): { special: Record<string, unknown>; data: Record<string, unknown> } {
  // No prototype: a field named __proto__ is data to keep, not an object's prototype to set.
  const special: Record<string, unknown> = Object.create(null);
  const data: Record<string, unknown> = Object.create(null);
  for (const [name, value] of Object.entries(fields)) {
    if (SPECIAL_FIELDS.includes(name)) special[name] = value;
    // A right-to-left override in a name would show the owner another name than the one stored: made visible.
    else data[visibleBidi(name)] = value;
  }
  return { special, data };
}

/** The intake of posts to forms: the public endpoint's rules, which the dashboard's test post obeys too. */
export function intakeService(
  forms: FormsService,
  submissions: SubmissionsService,
  spam: SpamService,
  idempotency: IdempotencyService,
  urls: PublicUrls,
  payments: PaymentsService,
) {
  /** The rules that follow the reading of the post's fields, and its write (with its Idempotency-Key, if any). */
  async function accept(
    form: FormRow,
    fields: Record<string, unknown>,
    post: Post,
    policy: IntakePolicy,
    key: Omit<IdempotencyRequest, "location" | "redirected"> | null,
    language: string,
  ): Promise<Omit<Accepted, "paymentUrl">> {
    const { special, data } = splitFields(fields);
    // A filled honeypot is answered exactly like a success, so a bot learns nothing (not even from a post
    // that holds nothing else); the owner finds it under spam.
    const honeypot = filled(special._gotcha);
    if (!honeypot && Object.keys(data).length === 0) throw new ApiError("empty_submission", "The submission has no fields to store.");
    checkFieldNames(data);
    const cc = honeypot ? [] : copiedTo(special._cc);
    const kept = honeypot ? data : applyFieldRules(rulesOf(form), form.otherFields as OtherFields, data, messagesFor(language));
    // What it pays is a rule of its fields: an amount not listed is refused with them, before anything is judged.
    const charge = honeypot ? null : chargeOf(form, kept, messagesFor(language));
    // _next is checked whoever asks, so that a bad one is found on the first fetch() test, not in a browser later.
    const thanks = thanksAddress(answerBaseUrl(urls), form, language, post.acceptLanguage);
    const location = redirectTarget(form, special._next, thanks);
    const redirected = location !== thanks;
    // A honeypot catch is spam whatever its captcha says: the provider is not asked about it.
    const caught: SpamReason | null = honeypot
      ? "honeypot"
      : post.byOwner
        ? null
        : await checkCaptcha(form, special, post.ip, policy.captcha ?? defaultCaptchaOptions, spam.altcha);
    // The form's rules and the account's filter judge what the honeypot and the captcha let through.
    const verdict = caught ? { reason: caught, score: null, tokens: null } : await spam.judge(form, kept);
    // A client that left while the captcha or the filter was asked gets no answer, so it will retry: store nothing.
    if (post.gone?.()) throw new ClientClosedRequest();
    const submission = await submissions.receive(form, kept, {
      isSpam: verdict.reason !== null,
      spamReason: verdict.reason ?? undefined,
      spamScore: verdict.score,
      spamTokens: verdict.tokens,
      dataHash: verdict.hash,
      notification: { subject: special._subject, replyTo: special._replyto ?? kept.email, cc },
      idempotency: key ? { ...key, location, redirected } : undefined,
      language,
      payment: charge,
    });
    return { submissionId: submission.id, location, redirected, spamReason: verdict.reason, replayed: false, language };
  }

  return {
    /** The form a post to `slug` is for, or null (looked up first, so that even an error answer knows the form's origins). */
    findForm: (slug: string): Promise<FormRow | null> => forms.findBySlug(slug),

    /**
     * Applies every rule to a post to `form` (null: no such form) and stores it, or throws the first rule it
     * breaks, as a RefusedPost: in the visitor's language, with the fields as posted.
     */
    async receive(form: FormRow | null, post: Post, policy: IntakePolicy): Promise<Accepted> {
      const fromForm = form ? pageOf(form).language : null;
      let language = pickLanguage({ form: fromForm, acceptLanguage: post.acceptLanguage });
      let posted: Record<string, unknown> | null = null;
      try {
        checkForm(form, post);
        const key = idempotencyKeyOf(post.idempotencyKey ?? null);
        const retryAfter = post.byOwner ? 0 : policy.rateLimit(`${form.id}|${post.ip}`);
        if (retryAfter > 0) {
          throw new ApiError("rate_limited", `Too many submissions from your address; try again in ${retryAfter} seconds.`, {
            headers: { "Retry-After": String(retryAfter) },
          });
        }
        const fields = await post.readFields(form);
        posted = fields;
        const spoken = pickLanguage({ field: fields._language, form: fromForm, acceptLanguage: post.acceptLanguage });
        language = spoken;
        const fingerprint = key === null ? null : fingerprintOf(fields);
        const accepted =
          key === null || fingerprint === null
            ? await accept(form, fields, post, policy, null, spoken)
            : await idempotency.once(
                form.id,
                key,
                fingerprint,
                () => accept(form, fields, post, policy, { key, fingerprint }, spoken),
                (first) => ({ ...first, spamReason: null, replayed: true, language: spoken }),
              );
        // Stored first, then sent to pay: a payment page that cannot be made loses nothing (502, kept awaiting),
        // and a repeat (its Idempotency-Key) is sent to the same page. Spam is sent nowhere.
        const paymentUrl = accepted.spamReason === null ? await payments.checkout(form, accepted.submissionId) : null;
        return { ...accepted, paymentUrl };
      } catch (error) {
        throw refusedPost(error, language, posted);
      }
    },
  };
}
