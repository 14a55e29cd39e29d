// A form's payment (docs/api.md, "Payments"): what it is set to, how it is stored and shown, and the amount a post
// pays, a fixed one or the one the visitor chose among the listed amounts.
import { memoized } from "../../db/prepared.ts";
import type { FormRow } from "../../db/schema.ts";
import type { FormPayment } from "../../domain/types.ts";
import { ApiError } from "../../errors.ts";
import type { Messages } from "../../lib/i18n/en.ts";
import type { Zod } from "../../lib/validate.ts";

/** The payment providers a form may name; each one's module says how it is asked (stripe.ts). */
export const PAYMENT_PROVIDERS = ["stripe"] as const;
/** The largest amount, in minor units, a form may ask: Stripe's own bound of 8 digits. */
export const MAX_AMOUNT = 99_999_999;
/** Most amounts a visitor may choose among. */
export const MAX_AMOUNTS = 50;

const amount = (z: Zod, name: string) =>
  z
    .int({ error: `${name} must be a whole number of the currency's minor units (cents: 1500 for 15.00).` })
    .min(1, `${name} must be at least 1.`)
    .max(MAX_AMOUNT, `${name} must be at most ${MAX_AMOUNT}.`);

/** `payment` on a form's create and update (the OpenAPI document is generated from it too). */
export const paymentSchema = (z: Zod) =>
  z
    .strictObject(
      {
        provider: z.enum(PAYMENT_PROVIDERS, { error: `payment.provider must be one of ${PAYMENT_PROVIDERS.join(", ")}.` }),
        currency: z
          .string({ error: "payment.currency must be a three-letter ISO currency code such as eur or usd." })
          .regex(/^[A-Za-z]{3}$/, "payment.currency must be a three-letter ISO currency code such as eur or usd.")
          .toLowerCase(),
        amount: amount(z, "payment.amount").optional(),
        amountField: z
          .string({ error: "payment.amountField must be the name of the field that holds the chosen amount." })
          .min(1, "payment.amountField must not be empty.")
          .max(200, "payment.amountField must be at most 200 characters.")
          .optional(),
        amounts: z.array(amount(z, "payment.amounts[]")).min(1).max(MAX_AMOUNTS, `payment.amounts holds at most ${MAX_AMOUNTS} amounts.`).optional(),
        description: z
          .string({ error: "payment.description must be text." })
          .trim()
          .min(1, "payment.description must not be empty.")
          .max(250, "payment.description must be at most 250 characters.")
          .optional(),
      },
      { error: "payment must be {provider, currency, amount} or {provider, currency, amountField, amounts}, or null." },
    )
    .refine((p) => (p.amount === undefined) !== (p.amountField === undefined), "payment takes either amount or amountField with amounts, not both.")
    .refine((p) => p.amountField === undefined || (p.amounts?.length ?? 0) > 0, "payment.amountField needs amounts: the amounts a visitor may choose.")
    .refine((p) => p.amountField !== undefined || p.amounts === undefined, "payment.amounts goes with amountField.");

/** A payment is taken only where the server can ask Stripe for it (`configured`): else `400 invalid_parameter` naming the setting. */
export function paymentAllowed(payment: unknown, configured: boolean): void {
  if (payment && !configured) {
    throw new ApiError("invalid_parameter", "payment needs this server's Stripe account: start serve with --stripe-secret-key (FORMSVC_STRIPE_SECRET_KEY).", {
      field: "payment",
    });
  }
}

type PaymentInput = ReturnType<ReturnType<typeof paymentSchema>["parse"]>;

/** The stored JSON of a payment setting, or null to clear it (undefined: left as it is). */
export function storedPayment(input: PaymentInput | null | undefined): string | null | undefined {
  if (input === undefined) return undefined;
  return input === null ? null : JSON.stringify(input);
}

// Parsed once per distinct text, not per post; frozen because every caller shares the one object.
const parsed = memoized((text: string) => Object.freeze(JSON.parse(text)) as FormPayment);

/** A form's payment, or null when it takes none. */
export function paymentOf(row: Pick<FormRow, "payment">): FormPayment | null {
  return row.payment ? parsed(row.payment) : null;
}

/** What one post pays. */
export interface Charge {
  amount: number;
  currency: string;
}

/**
 * What a post with `data` pays on `form`, or null when the form takes no payment. With `amountField`, the field must
 * hold one of the listed amounts in minor units (`tier=5000`): anything else is a field error, in the visitor's words.
 */
export function chargeOf(form: Pick<FormRow, "payment">, data: Record<string, unknown>, t: Messages): Charge | null {
  const payment = paymentOf(form);
  if (!payment) return null;
  if (payment.amount !== undefined) return { amount: payment.amount, currency: payment.currency };
  const field = payment.amountField!;
  const value = data[field];
  const chosen = typeof value === "number" ? value : typeof value === "string" && /^\d{1,9}$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (payment.amounts!.includes(chosen)) return { amount: chosen, currency: payment.currency };
  const message = t.chooseOption({ label: field });
  throw new ApiError("validation_failed", message, { field, items: [{ field, code: "invalid_option", message }] });
}
