// What a visitor reads when a post is refused, in their language (docs/api.md, "Languages"). English keeps the
// service's own sentence, which says more; another language gets its catalog's sentence for the error's code.
// The fields' own messages are already in the visitor's language (fields.ts writes them from the catalog).
import { ApiError, type ErrorCode } from "../../errors.ts";
import { DEFAULT_LANGUAGE, messagesFor, type Messages } from "../../lib/i18n/index.ts";

/** A post refused: the error, with the visitor's language and the fields as posted (a page shows them again). */
export class RefusedPost extends ApiError {
  readonly language: string;
  /** The post's fields as read, or null when it was refused before they were read. */
  readonly posted: Record<string, unknown> | null;

  constructor(error: ApiError, message: string, language: string, posted: Record<string, unknown> | null) {
    super(error.code, message, { field: error.field, headers: error.headers, items: error.items, cause: error });
    this.name = "RefusedPost";
    this.language = language;
    this.posted = posted;
  }
}

/** The catalog's sentence for each code a public post may be refused with. */
const BY_CODE: Partial<Record<ErrorCode, (t: Messages, error: ApiError) => string>> = {
  form_not_found: (t) => t.formNotFound(),
  form_inactive: (t) => t.formInactive(),
  origin_not_allowed: (t) => t.originNotAllowed(),
  rate_limited: (t, error) => t.rateLimited({ seconds: Number(error.headers["Retry-After"] ?? 60) }),
  captcha_failed: (t) => t.captchaFailed(),
  empty_submission: (t) => t.emptySubmission(),
  invalid_redirect: (t) => t.invalidRedirect(),
  payload_too_large: (t) => t.payloadTooLarge(),
  files_not_accepted: (t) => t.filesNotAccepted(),
  internal_error: (t) => t.serverError(),
  unavailable: (t) => t.serverError(),
};

/** The message a visitor of `language` reads for `error` (validation_failed's is already theirs). */
function visitorMessage(error: ApiError, language: string): string {
  if (language === DEFAULT_LANGUAGE || error.code === "validation_failed") return error.message;
  const t = messagesFor(language);
  return (BY_CODE[error.code] ?? (() => t.notSent()))(t, error);
}

/** `error` as the visitor should read it; anything but an ApiError is left as it is (the route logs it). */
export function refusedPost(error: unknown, language: string, posted: Record<string, unknown> | null): unknown {
  if (!(error instanceof ApiError) || error instanceof RefusedPost) return error;
  return new RefusedPost(error, visitorMessage(error, language), language, posted);
}
