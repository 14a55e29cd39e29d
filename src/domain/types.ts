// The words every room speaks: who acts, a form, a submission, and the limits and constants that more than
// one service reads. Types and plain constants only: nothing here touches the database or the network.

/** A day in milliseconds: day counters and exports count whole UTC days. */
export const DAY_MS = 86_400_000;
/** A minute in milliseconds: the grain of the finer counters a busy day is found into (docs/performance.md). */
export const MINUTE_MS = 60_000;

export type Mode = "live" | "test";
export type Permission = "read" | "write" | "delete" | "admin";
/** Every permission, in the order lists show them. */
export const PERMISSIONS: readonly Permission[] = ["read", "write", "delete", "admin"];

/** Who is acting: an account, in one mode, with permissions, and for a form-level key the one form it may reach. */
export interface Principal {
  accountId: string;
  mode: Mode;
  permissions: ReadonlySet<Permission>;
  /** Set for a form-level (`fk_`) key: the only form it reaches. */
  formId: string | null;
  keyId: string | null;
  /** Who acts, as the activity log names them: `user:<email>`, `key:<prefix>`; absent: the local CLI (`cli`). */
  actor?: string;
}

/** The captcha providers a form may check (docs/api.md, "Captcha"). */
export const CAPTCHA_PROVIDERS = ["recaptcha", "hcaptcha", "turnstile"] as const;
export type CaptchaProvider = (typeof CAPTCHA_PROVIDERS)[number];

/** A form as every response shows it. */
export interface Form {
  id: string;
  name: string;
  slug: string;
  mode: Mode;
  isActive: boolean;
  submissionCount: number;
  createdAt: string;
  updatedAt: string;
  notificationEmail: string | null;
  redirectUrl: string | null;
  allowedDomains: string[];
  /** The captcha checked before a submission is stored; a provider's secret is write-only and never shown. */
  captcha: { provider: CaptchaProvider; siteKey: string | null } | { provider: "altcha"; complexity: number } | null;
  submitUrl: string;
  /** Whether a post may carry files (docs/api.md, "Files"). */
  fileUploads: boolean;
  /** Days a submission is kept, or null for ever (docs/api.md, "Retention and erasure"). */
  retentionDays: number | null;
  /** Days spam is kept, or null for ever. */
  spamRetentionDays: number | null;
  /** The fields the form declares, in their order ([] when it declares none: any field is taken as sent). */
  fields: FieldRule[];
  /** What a post's undeclared fields become when the form declares fields: kept, dropped or refused. */
  otherFields: OtherFields;
  /** The confirmation email to the person who submitted, and double opt-in (docs/api.md, "Confirmation email and double opt-in"); null: none. */
  confirmation: Confirmation | null;
  /** The form's spam rules (docs/api.md, "Spam"), or null: none. */
  spamRules: SpamRules | null;
  /** The payment a post makes (docs/api.md, "Payments"), or null: none. */
  payment: FormPayment | null;
  /** Whether the account's learning filter judges this form's posts, and the score over which one is spam. */
  spamFilter: { enabled: boolean; threshold: number };
  /** Where the notification goes instead of notificationEmail: the first route whose conditions the submission meets. */
  notificationRoutes: { to: string; when: { field: string; op: string; value?: string | string[] }[] }[];
  /** The page formsvc serves for the form at its address, and the embed (docs/api.md, "The form's page"). */
  page: FormPage;
}

/** A form's own page and embed: off unless enabled; every text null takes the visitor's catalog's. */
export interface FormPage {
  enabled: boolean;
  title: string | null;
  description: string | null;
  logoUrl: string | null;
  /** A CSS colour as #rgb or #rrggbb: the button and the focus ring. */
  accentColor: string | null;
  submitLabel: string | null;
  thankYouMessage: string | null;
  /** The language the page speaks whatever the browser asks (a catalog's code), or null: the visitor's. */
  language: string | null;
}

/** The types a form's declared field may have (docs/api.md, "Fields of a form"), and what undeclared fields become. */
export const FIELD_TYPES = ["text", "textarea", "email", "number", "url", "tel", "date", "checkbox", "select", "file"] as const;
export const OTHER_FIELDS = ["keep", "drop", "refuse"] as const;
export type OtherFields = (typeof OTHER_FIELDS)[number];

/** One field a form declares. */
export interface FieldRule {
  name: string;
  label?: string;
  /** A line shown under the input on the form's page, named by its aria-describedby. */
  hint?: string;
  type: (typeof FIELD_TYPES)[number];
  required?: boolean;
  minLength?: number;
  maxLength?: number;
  min?: number;
  max?: number;
  pattern?: string;
  options?: string[];
}

/** A form's confirmation email to the person who submitted (docs/api.md, "Confirmation email and double opt-in"), every default filled in. */
export interface Confirmation {
  enabled: boolean;
  /** The field whose value is the recipient. */
  field: string;
  subject: string;
  text: string;
  fromName: string | null;
  replyTo: string | null;
  doubleOptIn: boolean;
  optInDays: number;
  perAddressHours: number;
  perFormDaily: number;
}

/** A form's spam rules, as the API shows and takes them (docs/api.md, "Spam"). */
export interface SpamRules {
  blockedWords?: string[];
  blockedEmails?: string[];
  blockDisposableEmails?: boolean;
  maxLinks?: number;
  duplicateWindowHours?: number;
}

/** How long spam is kept when the owner says nothing (docs/api.md, "Retention and erasure"). */
export const DEFAULT_SPAM_RETENTION_DAYS = 30;

/** Why a submission is spam: a filled honeypot, a captcha that could not be verified, a rule, the filter, or the owner's say. */
export const SPAM_REASONS = [
  "honeypot",
  "captcha_unverified",
  "rule:blocked_words",
  "rule:blocked_emails",
  "rule:max_links",
  "disposable_email",
  "duplicate",
  "filter",
  "owner",
] as const;
export type SpamReason = (typeof SPAM_REASONS)[number];

/** A submission as every response shows it. */
export interface Submission {
  id: string;
  data: Record<string, unknown>;
  createdAt: string;
  isRead: boolean;
  isStarred: boolean;
  isSpam: boolean;
  /** Why it is spam (see SPAM_REASONS); null when it is not spam. */
  spamReason: SpamReason | null;
  /**
   * Only on a submission of double opt-in (docs/api.md, "Confirmation email and double opt-in"): when the person who submitted opened their link, and from which
   * client address; both null while it waits.
   */
  confirmedAt?: string | null;
  confirmedFrom?: string | null;
  /** Only on a submission of a form that takes a payment (docs/api.md, "Payments"): its state, amount and the provider's references. */
  payment?: SubmissionPayment;
  /** The learning filter's score (0–1): present only when the filter scored the submission. */
  spamScore?: number;
  /** The tokens that pulled the score most towards spam: present only when the filter scored the submission. */
  spamTokens?: string[];
}

/** Where a submission's payment stands: awaiting it (not kept), paid (kept), expired unpaid (never kept), refunded (kept). */
export const PAYMENT_STATUSES = ["awaiting", "paid", "expired", "refunded"] as const;
export type PaymentStatus = (typeof PAYMENT_STATUSES)[number];

/** A submission's payment as every response shows it; the amount in the currency's minor units. */
export interface SubmissionPayment {
  status: PaymentStatus;
  amount: number;
  currency: string;
  sessionId: string | null;
  paymentIntent: string | null;
}

/** A form's payment (docs/api.md, "Payments"): a fixed amount, or one of `amounts` chosen by the field `amountField`. */
export interface FormPayment {
  provider: "stripe";
  currency: string;
  amount?: number;
  amountField?: string;
  amounts?: number[];
  description?: string;
}

/** Most webhook endpoints one form may have: each submission is sent to every one of them. */
export const MAX_WEBHOOKS_PER_FORM = 20;
/** At most this many destinations on one form. */
export const MAX_DESTINATIONS_PER_FORM = 20;

/** The formats an export is written in. */
export const EXPORT_FORMATS = ["csv", "ndjson", "json"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
