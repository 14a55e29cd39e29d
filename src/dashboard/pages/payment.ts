import type { SubmissionPayment } from "../../domain/types.ts";

/** A payment in words, as the inbox shows it: "paid EUR 15.00", its amount read in the currency's own minor units. */
export function paymentText({ status, amount, currency }: SubmissionPayment): string {
  const format = new Intl.NumberFormat("en", { style: "currency", currency: currency.toUpperCase(), currencyDisplay: "code" });
  return `${status} ${format.format(amount / 10 ** (format.resolvedOptions().maximumFractionDigits ?? 2))}`;
}
