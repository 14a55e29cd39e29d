/** Every error code of the API (docs/api.md, "Errors"), with the HTTP status it is answered with. */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_body: 400,
  invalid_parameter: 400,
  empty_submission: 400,
  invalid_redirect: 400,
  files_not_accepted: 400,
  captcha_failed: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  origin_not_allowed: 403,
  form_inactive: 403,
  not_found: 404,
  form_not_found: 404,
  method_not_allowed: 405,
  slug_taken: 409,
  idempotency_key_reused: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_charset: 415,
  unsupported_encoding: 415,
  rate_limited: 429,
  internal_error: 500,
  not_implemented: 501,
  payment_unavailable: 502,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One input at fault (or the request as a whole, without `field`), as the `errors` list shows it. */
export interface ErrorItem {
  field?: string;
  code: string;
  message: string;
}

/**
 * The error body: the `error` object of docs/api.md ("Errors"), and beside it `errors`, the list that form clients (Formspree's
 * libraries among them) read: one item for a single error, one per field for `validation_failed`.
 */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
  errors: ErrorItem[];
}

/** An error meant for the client: a code of ERROR_STATUS, a sentence a person can act on, and the field at fault. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly field?: string;
  readonly headers: Record<string, string>;
  /** Every input at fault, when there are several (validation_failed); else the error alone. */
  readonly items?: ErrorItem[];

  constructor(code: ErrorCode, message: string, options: { field?: string; headers?: Record<string, string>; cause?: unknown; items?: ErrorItem[] } = {}) {
    super(message, { cause: options.cause });
    this.name = "ApiError";
    this.code = code;
    this.field = options.field;
    this.headers = options.headers ?? {};
    this.items = options.items;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
  }

  /** The one JSON error shape. */
  toBody(): ErrorBody {
    const error = { code: this.code, message: this.message, ...(this.field ? { field: this.field } : {}) };
    return { error, errors: this.items ?? [error] };
  }
}

/** The answer to anything that is not an ApiError: no stack, no SQL, nothing of the cause. */
export const internalError = () => new ApiError("internal_error", "Something went wrong on our side. Try again; if it goes on, the server log says more.");

/** The client closed the connection before its request was read: nobody is left to answer, and it is not our failure. */
export class ClientClosedRequest extends Error {
  constructor(options: { cause?: unknown } = {}) {
    super("the client closed the connection before the request was read", options);
    this.name = "ClientClosedRequest";
  }
}

/** The status logged and counted for a request its client gave up on (nginx's convention; never sent). */
export const CLIENT_CLOSED_STATUS = 499;

// SQLite's answers that mean the database cannot be used right now, rather than a mistake in a query.
const UNAVAILABLE_CODES = /^SQLITE_(BUSY|LOCKED|IOERR|FULL|READONLY|CANTOPEN|CORRUPT|NOTADB|PROTOCOL)/;

/** True when `error` says the database does not answer (locked, read-only, gone, full, closed). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === "string" && UNAVAILABLE_CODES.test(code)) return true;
  return /closed database|database (is|has) closed|database is locked|readonly database/i.test(error.message);
}

/** The answer when the database does not answer. */
export const unavailableError = () => new ApiError("unavailable", "The service cannot reach its database right now. Try again in a moment.");
