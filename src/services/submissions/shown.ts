// A stored submission as the API, the CLI, the dashboard and a webhook's body show it.
import type { SubmissionRow } from "../../db/schema.ts";
import type { PaymentStatus, SpamReason, Submission, SubmissionPayment } from "../../domain/types.ts";
import { iso } from "../../lib/time.ts";

/** A submission's row as the API shows it: its data parsed, times in ISO 8601, the spam, opt-in and payment fields only where they apply. */
export const toSubmission = (row: SubmissionRow): Submission => ({
  id: row.id,
  data: JSON.parse(row.data) as Record<string, unknown>,
  createdAt: iso(row.createdAt),
  isRead: row.isRead,
  isStarred: row.isStarred,
  isSpam: row.isSpam,
  spamReason: row.isSpam ? ((row.spamReason as SpamReason | null) ?? null) : null,
  ...(row.spamScore === null ? {} : { spamScore: row.spamScore, spamTokens: JSON.parse(row.spamTokens ?? "[]") as string[] }),
  ...(row.unconfirmed || row.confirmedAt !== null ? optInState(row) : {}),
  ...(row.paymentStatus === null ? {} : { payment: paymentState(row) }),
});

/** A submission's payment (docs/api.md, "Payments"): where it stands, how much, and the provider's references. */
export const paymentState = (row: SubmissionRow): SubmissionPayment => ({
  status: row.paymentStatus as PaymentStatus,
  amount: row.paymentAmount ?? 0,
  currency: row.paymentCurrency ?? "",
  sessionId: row.paymentSession,
  paymentIntent: row.paymentIntent,
});

/** A double opt-in submission's state: when and where its link was opened (null while it waits). */
const optInState = (row: SubmissionRow) => ({
  confirmedAt: row.confirmedAt === null ? null : iso(row.confirmedAt),
  confirmedFrom: row.confirmedFrom,
});
