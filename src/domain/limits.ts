// The limits and defaults a person sees in more than one place: each is enforced by the rule that imports it
// from here, and the OpenAPI descriptions, the dashboard's hints and the CLI's help say it from here too. They
// are here rather than beside their rule because the CLI's help must not load the database code that rule
// sits in (test/process/startup.test.ts).

/** A page of a list (`limit`): its range, and its size when the request does not say. */
export const PAGE_LIMIT = { min: 1, max: 100, default: 50 } as const;

/** ALTCHA's complexity, the largest counter a challenge asks for: its range, and its value when the form does not say. */
export const COMPLEXITY_RANGE = { min: 100, max: 1_000_000 } as const;
export const DEFAULT_COMPLEXITY = 20_000;

/** The learning filter acts once the account has marked at least this many submissions of each kind (docs/api.md, "Spam"). */
export const FILTER_MIN_MARKS = 20;
/** The score over which a submission is spam when the form does not say. */
export const DEFAULT_FILTER_THRESHOLD = 0.55;

/** The confirmation email's limits (docs/api.md, "Confirmation email and double opt-in"): each one's range. */
export const CONFIRMATION_RANGES = {
  optInDays: { min: 1, max: 30 },
  perAddressHours: { min: 1, max: 720 },
  perFormDaily: { min: 1, max: 10_000 },
} as const;
/** A confirmation setting's values when the owner does not give them. */
export const CONFIRMATION_DEFAULTS = { field: "email", doubleOptIn: false, optInDays: 7, perAddressHours: 24, perFormDaily: 200 } as const;

/** How long an invitation link to the dashboard works. */
export const INVITATION_DAYS = 7;
