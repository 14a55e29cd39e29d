import type { CaptchaProvider } from "../../domain/types.ts";

/** Each provider's siteverify address (POST secret, response, remoteip; answers JSON with `success`). */
export const CAPTCHA_VERIFY_URLS: Record<CaptchaProvider, string> = {
  recaptcha: "https://www.google.com/recaptcha/api/siteverify",
  hcaptcha: "https://api.hcaptcha.com/siteverify",
  turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify",
};

/** The field each provider's widget adds to the form. */
export const CAPTCHA_TOKEN_FIELDS: Record<CaptchaProvider, string> = {
  recaptcha: "g-recaptcha-response",
  hcaptcha: "h-captcha-response",
  turnstile: "cf-turnstile-response",
};

export interface CaptchaOptions {
  /** The siteverify address of each provider (`--captcha-verify-url provider=URL` replaces one). */
  verifyUrls: Record<CaptchaProvider, string>;
  /** How long the provider may take before the submission is kept as unverified spam. */
  timeoutMs: number;
  /** Where a provider that could not be asked is reported, one line naming it (never a secret or token). */
  log?: (line: string) => void;
}

/** How long a provider may take when the server is not told otherwise (--captcha-timeout-ms reads it). */
export const DEFAULT_CAPTCHA_TIMEOUT_MS = 5_000;

/** The options of a captcha check when the app is given none (tests, and the CLI, which posts nothing). */
export const defaultCaptchaOptions: CaptchaOptions = { verifyUrls: CAPTCHA_VERIFY_URLS, timeoutMs: DEFAULT_CAPTCHA_TIMEOUT_MS };

/**
 * What the provider says of a token: `passed`, `refused` (the provider answered and said no), or `unverified`
 * (it could not be asked: unreachable, too slow, or an answer that is not its JSON).
 */
export type CaptchaVerdict = "passed" | "refused" | "unverified";

/** Asks the provider's siteverify whether `token` was solved, from `remoteip`, with the form's secret. */
export async function verifyCaptcha(
  provider: CaptchaProvider,
  secret: string,
  token: string,
  remoteip: string,
  options: CaptchaOptions,
): Promise<CaptchaVerdict> {
  const body = new URLSearchParams({ secret, response: token });
  if (remoteip && remoteip !== "unknown") body.set("remoteip", remoteip);
  const unverified = (why: string): CaptchaVerdict => {
    options.log?.(`captcha: ${provider} could not verify a token (${why}); the submission is kept as spam (captcha_unverified)`);
    return "unverified";
  };
  let response: Response;
  try {
    response = await fetch(options.verifyUrls[provider], { method: "POST", body, redirect: "error", signal: AbortSignal.timeout(options.timeoutMs) });
  } catch (error) {
    return unverified(fetchFailure(error, options.timeoutMs));
  }
  if (!response.ok) return unverified(`it answered HTTP ${response.status}`);
  let answer: { success?: unknown } | null;
  try {
    answer = (await response.json()) as { success?: unknown } | null;
  } catch (error) {
    return unverified((error as Error).name === "TimeoutError" ? fetchFailure(error, options.timeoutMs) : "its answer is not JSON");
  }
  if (typeof answer?.success !== "boolean") return unverified("its answer has no true or false success");
  return answer.success ? "passed" : "refused";
}

/** Why a request to the provider failed, in words that hold no secret, token or body. */
function fetchFailure(error: unknown, timeoutMs: number): string {
  const { name, code } = error as { name?: string; code?: string };
  if (name === "TimeoutError" || name === "AbortError") return `no answer within ${timeoutMs} ms`;
  return `it could not be reached: ${code ?? name ?? "network error"}`;
}
