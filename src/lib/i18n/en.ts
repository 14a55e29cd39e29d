// The words a visitor reads, in English: the catalog every other language's file follows key by key
// (test/unit/i18n.test.ts fails when one lacks a key this one has). A message is a function of its values.
import { plural } from "./plural.ts";

const n = (count: number, one: string, other: string) => plural("en", count, { one, other });

export const en = {
  language: "English",

  // A declared field's errors (docs/api.md, "Fields").
  required: (v: { label: string }) => `${v.label}: fill this in.`,
  checkRequired: (v: { label: string }) => `${v.label}: check this box to go on.`,
  chooseFile: (v: { label: string }) => `${v.label}: choose a file.`,
  chooseOption: (v: { label: string }) => `${v.label}: choose one of the options given.`,
  enterNumber: (v: { label: string }) => `${v.label}: enter a number.`,
  tooSmall: (v: { label: string; min: number }) => `${v.label}: enter ${v.min} or more.`,
  tooLarge: (v: { label: string; max: number }) => `${v.label}: enter ${v.max} or less.`,
  oneValue: (v: { label: string }) => `${v.label}: enter one value as text.`,
  invalidEmail: (v: { label: string }) => `${v.label}: enter an email address such as ann@example.com.`,
  invalidUrl: (v: { label: string }) => `${v.label}: enter an address such as https://example.com.`,
  invalidDate: (v: { label: string }) => `${v.label}: enter a date as 2026-11-22.`,
  tooShort: (v: { label: string; min: number }) => `${v.label}: enter at least ${n(v.min, "# character", "# characters")}.`,
  tooLong: (v: { label: string; max: number }) => `${v.label}: enter at most ${n(v.max, "# character", "# characters")}.`,
  patternMismatch: (v: { label: string }) => `${v.label}: enter it in the format asked for.`,
  unknownField: (v: { name: string }) => `${v.name}: this form has no such field.`,
  fieldsNeedFixing: (v: { count: number }) => n(v.count, "One field needs fixing.", "# fields need fixing."),

  // What went wrong with a post, by the error's code.
  formNotFound: () => "This form does not exist.",
  formInactive: () => "This form is not accepting submissions right now.",
  originNotAllowed: () => "This form does not accept submissions from this website.",
  rateLimited: (v: { seconds: number }) => `Too many submissions from your address; try again in ${n(v.seconds, "# second", "# seconds")}.`,
  captchaFailed: () => "The captcha was not solved, or its solution expired. Let the captcha finish and send the form again.",
  emptySubmission: () => "The submission has no fields to store.",
  invalidRedirect: () => "The form's page sends visitors to an address it may not use.",
  payloadTooLarge: () => "The submission is too large.",
  filesNotAccepted: () => "This form does not take files.",
  notSent: () => "The submission could not be read. Try again.",
  serverError: () => "Something went wrong on our side. Try again in a moment.",

  // The thank-you and error pages.
  thanksTitle: () => "Thank you",
  thanksHeading: () => "Thank you!",
  thanksText: () => "Your submission has been received.",
  thanksMessage: () => "Thank you! Your submission has been received.",
  errorTitle: () => "Submission not sent",
  errorHeading: () => "Your submission was not sent",
  errorStatus: (v: { status: number }) => `Error ${v.status}`,
  goBack: () => "Go back",

  // The form page and the embed.
  send: () => "Send",
  sending: () => "Sending…",
  requiredMark: () => "required",
  chooseOne: () => "Choose…",
  honeypot: () => "Leave this field empty",
  networkError: () => "The form could not be sent. Check your connection and try again.",
  errorSummary: (v: { count: number }) => n(v.count, "One field needs fixing:", "# fields need fixing:"),
  pageDisabled: () => "This form has no page.",
  captchaLabel: () => "I'm not a robot",
  captchaVerifying: () => "Verifying…",
  captchaVerified: () => "Verified",
  captchaError: () => "Verification failed. Try again later.",
  captchaExpired: () => "Verification expired. Try again.",
  captchaWait: () => "Verifying… please wait.",

  // The fixed words of the confirmation email.
  confirmByLink: () => "Confirm your address by opening this link:",

  // The page a double opt-in link opens: what came of it, and nothing to do but close the page.
  confirmedTitle: () => "Confirmed",
  confirmedText: () => "Thank you: your address is confirmed. You can close this page.",
  alreadyConfirmedTitle: () => "Already confirmed",
  alreadyConfirmedText: () => "This address was already confirmed. There is nothing more to do.",
  linkExpiredTitle: () => "Link expired",
  linkExpiredText: () => "This confirmation link has expired, so nothing was confirmed. If you still want to, send the form again.",
  linkInvalidTitle: () => "Link not valid",
  linkInvalidText: () => "This confirmation link is not valid, so nothing was confirmed. Check that the whole link was copied from the email.",
};

/** What every language's catalog holds: English's keys, each message taking the same values. */
export type Messages = typeof en;
