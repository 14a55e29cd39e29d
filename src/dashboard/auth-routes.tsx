/** @jsxImportSource hono/jsx */
import type { Handler, RequestContext } from "../http/context.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import type { Router } from "../http/router.ts";
import { randomBase62 } from "../lib/random.ts";
import { selfCommand } from "../lib/self-command.ts";
import { SECOND_STEP_MS, SESSION_IDLE_MS, warmDecoy } from "../services/people/users.ts";
import { action, checkToken, currentSession, fieldErrors, noticeOf, refused, signedIn } from "./guard.tsx";
import { cookie, localPath, originProblem, page, PRESESSION_COOKIE, readCookies, readForm, redirect, sameOrigin, SESSION_COOKIE } from "./http.ts";
import { AccountPage, CodePage, MessagePage, SetupPage, SignInPage, type SignInWays, type UpdateAnswer } from "./pages/auth.tsx";

const render = (status: number, element: unknown, headers: Record<string, string> = {}) => page(status, String(element), headers);

const usedLink = () => `This link has already been used or has expired. Ask for a new one on the server with: ${selfCommand()} dashboard link`;

/** The pre-session token of the request, or a new one with the cookie that sets it. */
export function presession(ctx: RequestContext): { token: string; headers: Record<string, string> } {
  const existing = readCookies(ctx.request)[PRESESSION_COOKIE];
  if (existing && /^[0-9A-Za-z]{32}$/.test(existing)) return { token: existing, headers: {} };
  const token = randomBase62(32);
  return { token, headers: { "set-cookie": cookie(ctx, PRESESSION_COOKIE, token, 3600) } };
}

/** Sign-in and setup forms: from this server, and carrying the pre-session cookie's token (login CSRF). */
export function presessionCheck(ctx: RequestContext, form: URLSearchParams): "malformed" | "differs" | "matches" {
  const expected = readCookies(ctx.request)[PRESESSION_COOKIE] ?? "";
  const given = checkToken(form.get("_presession") ?? "", expected);
  return given === "matches" && !sameOrigin(ctx) ? "differs" : given;
}

/** The release address's answer to the Account page's check (only with --update-check, only when asked), or why there is none. */
async function askForUpdate(ctx: RequestContext): Promise<UpdateAnswer> {
  if (!ctx.options.updateCheck) return { error: "Checking for a newer version is off on this server." };
  try {
    return { check: await ctx.options.updateCheck() };
  } catch (error) {
    return { error: `The check failed: ${(error as Error).message}` };
  }
}

/** Opens a session and sends the browser on, with the session cookie (the Sessions list keeps its browser and address). */
export async function signInAs(ctx: RequestContext, userId: string, next: string, viaLink = false): Promise<Response> {
  const { token } = await ctx.services.users.createSession(userId, { viaLink, userAgent: ctx.request.headers.get("user-agent"), ip: ctx.ip });
  return redirect(next, [cookie(ctx, SESSION_COOKIE, token, SESSION_IDLE_MS / 1000), cookie(ctx, PRESESSION_COOKIE, "", 0), cookie(ctx, SECOND_COOKIE, "", 0)]);
}

/** The sign-in page's ways in besides passkeys, as serve was started (--oidc-issuer, --password-signin). */
export const signInWays = (ctx: RequestContext): SignInWays => ({ sso: ctx.options.sso?.name, passwordSignin: ctx.options.passwordSignin !== false });

/** The cookie that carries a correct password's one-time token to the second step (the code page). */
const SECOND_COOKIE = "formsvc_second";

const endSession = (ctx: RequestContext) => cookie(ctx, SESSION_COOKIE, "", 0);

/** Sign-in attempts a minute that refill, per client address and per email (after a burst of 10 and 5). */
const SIGN_IN_RATES = { perAddress: 20, perEmail: 10 } as const;

/** Sign-in, sign-out, the first user's setup, one-time links and the account page. */
export function authRoutes(router: Router<Handler>): void {
  // Per address and per email: guessing passwords is slow whichever of the two an attacker varies. Made with the
  // first sign-in, at the rates the app was given (a test stops the refill, so that it counts tries, not time).
  let limits: { perAddress: RateLimiter; perEmail: RateLimiter } | null = null;
  const limitsOf = (ctx: RequestContext) => {
    const scale = ctx.options.signInRateScale ?? 1;
    limits ??= { perAddress: new RateLimiter(SIGN_IN_RATES.perAddress * scale, 10), perEmail: new RateLimiter(SIGN_IN_RATES.perEmail * scale, 5) };
    return limits;
  };

  router.on("GET", "/dashboard", async (ctx) => redirect((await currentSession(ctx)) ? "/dashboard/forms" : "/dashboard/signin"));

  router.on("GET", "/dashboard/signin", async (ctx) => {
    if (await currentSession(ctx)) return redirect("/dashboard/forms");
    // The decoy hash is made while the person types, so that even the first wrong email is not the slow one.
    warmDecoy();
    const pre = presession(ctx);
    // Before anyone can sign in, the page says how the first user is made.
    const noUser = (await ctx.services.users.count()) === 0;
    return render(
      200,
      <SignInPage
        presession={pre.token}
        next={localPath(ctx.url.searchParams.get("next"), "") || undefined}
        notice={noticeOf(ctx)}
        noUser={noUser}
        {...signInWays(ctx)}
      />,
      pre.headers,
    );
  });

  router.on("POST", "/dashboard/signin", async (ctx) => {
    const form = await readForm(ctx);
    const pre = presession(ctx);
    const email = (form.get("email") ?? "").trim();
    const next = localPath(form.get("next"), "/dashboard/forms");
    const again = (status: number, error: string, headers: Record<string, string> = {}) =>
      render(status, <SignInPage presession={pre.token} email={email} error={error} next={form.get("next") ?? undefined} {...signInWays(ctx)} />, {
        ...pre.headers,
        ...headers,
      });
    if (ctx.options.passwordSignin === false) return again(403, "Password sign-in is off on this server: use the buttons below.");
    const checked = presessionCheck(ctx, form);
    if (checked === "malformed") return again(400, "This sign-in form is malformed. Try again.");
    if (checked === "differs") return again(403, originProblem(ctx) ?? "This sign-in form has expired. Try again.");
    const { perAddress, perEmail } = limitsOf(ctx);
    const wait = Math.max(perAddress.take(ctx.ip), perEmail.take(email.toLowerCase()));
    if (wait > 0) return again(429, `Too many sign-in attempts. Try again in ${wait} seconds.`, { "retry-after": String(wait) });
    const user = await ctx.services.users.verifyPassword(email, form.get("password") ?? "");
    // The same words for an unknown email and a wrong password: the page must not tell which emails exist.
    if (!user) return again(401, "Wrong email or password.");
    // Only wrong tries count: a person who signs in often is never slowed down by it.
    perAddress.giveBack(ctx.ip);
    perEmail.giveBack(email.toLowerCase());
    if ((await ctx.services.twoStep.status(user.id)).on) {
      // The password was right; the session opens only with a code too (docs/dashboard.md, "Two-step sign-in").
      const second = await ctx.services.users.createLink("second", user.id, SECOND_STEP_MS);
      const to = `/dashboard/signin/code${next === "/dashboard/forms" ? "" : `?next=${encodeURIComponent(next)}`}`;
      return redirect(to, [cookie(ctx, SECOND_COOKIE, second, SECOND_STEP_MS / 1000)]);
    }
    return signInAs(ctx, user.id, next);
  });

  router.on("GET", "/dashboard/signin/code", async (ctx) => {
    const second = readCookies(ctx.request)[SECOND_COOKIE] ?? "";
    if (!(await ctx.services.users.linkUser("second", second))) return redirect("/dashboard/signin?notice=secondexpired");
    const pre = presession(ctx);
    return render(200, <CodePage presession={pre.token} next={localPath(ctx.url.searchParams.get("next"), "") || undefined} />, pre.headers);
  });

  router.on("POST", "/dashboard/signin/code", async (ctx) => {
    const form = await readForm(ctx);
    const pre = presession(ctx);
    const next = localPath(form.get("next"), "/dashboard/forms");
    const again = (status: number, error: string, headers: Record<string, string> = {}) =>
      render(status, <CodePage presession={pre.token} error={error} next={form.get("next") ?? undefined} />, { ...pre.headers, ...headers });
    if (presessionCheck(ctx, form) !== "matches") return again(403, originProblem(ctx) ?? "This sign-in form has expired. Try again.");
    const second = readCookies(ctx.request)[SECOND_COOKIE] ?? "";
    const user = await ctx.services.users.linkUser("second", second);
    if (!user) return redirect("/dashboard/signin?notice=secondexpired");
    // A wrong code is a wrong try, as a wrong password is: the same limits, per address and per email.
    const { perAddress, perEmail } = limitsOf(ctx);
    const wait = Math.max(perAddress.take(ctx.ip), perEmail.take(user.email));
    if (wait > 0) return again(429, `Too many sign-in attempts. Try again in ${wait} seconds.`, { "retry-after": String(wait) });
    if (!(await ctx.services.twoStep.verify(user.id, form.get("code") ?? ""))) {
      return again(401, "That code is not right, or it was used already. Enter the code your app shows now, or an unused recovery code.");
    }
    perAddress.giveBack(ctx.ip);
    perEmail.giveBack(user.email);
    // The password's token works once: a second tab with the same cookie starts over.
    if (!(await ctx.services.users.useLink("second", second))) return redirect("/dashboard/signin?notice=secondexpired");
    return signInAs(ctx, user.id, next);
  });

  router.on("POST", "/dashboard/signout", async (ctx) => {
    const problem = originProblem(ctx);
    if (problem) return refused(problem);
    const token = readCookies(ctx.request)[SESSION_COOKIE];
    const session = await currentSession(ctx);
    const form = await readForm(ctx);
    if (session && checkToken(form.get("_csrf") ?? "", session.csrfToken) !== "matches")
      return refused("This form has expired. Reload the page and try again.", session);
    if (token && session) await ctx.services.users.endSession(token);
    return redirect("/dashboard/signin?notice=signedout", [endSession(ctx)]);
  });

  router.on("GET", "/dashboard/setup", async (ctx) => {
    const token = ctx.url.searchParams.get("token") ?? "";
    if (!(await ctx.services.users.checkLink("setup", token))) return render(410, <MessagePage title="Link not valid" message={usedLink()} />);
    const pre = presession(ctx);
    return render(200, <SetupPage presession={pre.token} token={token} />, pre.headers);
  });

  router.on("POST", "/dashboard/setup", async (ctx) => {
    const form = await readForm(ctx);
    const pre = presession(ctx);
    const token = form.get("token") ?? "";
    const email = form.get("email") ?? "";
    const password = form.get("password") ?? "";
    const again = (errors: Record<string, string>) =>
      render(400, <SetupPage presession={pre.token} token={token} email={email} errors={errors} />, pre.headers);
    if (presessionCheck(ctx, form) !== "matches") return again({ form: originProblem(ctx) ?? "This form has expired. Try again." });
    if (password !== (form.get("confirm") ?? "")) return again({ confirm: "The two passwords differ." });
    try {
      const account = await ctx.services.accounts.resolve();
      const user = await ctx.services.users.useLink("setup", token, { email, password, accountId: account.id });
      if (!user) return render(410, <MessagePage title="Link not valid" message={usedLink()} />);
      return signInAs(ctx, user.id, "/dashboard/forms");
    } catch (error) {
      return again(fieldErrors(error));
    }
  });

  // A sign-in link signs in when opened, as links mailed by other services do; it works once, for 15 minutes.
  router.on("GET", "/dashboard/link", async (ctx) => {
    const user = await ctx.services.users.useLink("signin", ctx.url.searchParams.get("token") ?? "");
    if (!user) return render(410, <MessagePage title="Link not valid" message={usedLink()} />);
    return signInAs(ctx, user.id, "/dashboard/account", true);
  });

  router.on(
    "GET",
    "/dashboard/account",
    signedIn(async (ctx, session) => {
      const update = ctx.url.searchParams.get("check") === "update" ? await askForUpdate(ctx) : undefined;
      return render(
        200,
        <AccountPage session={session} notice={noticeOf(ctx)} backup={ctx.options.backups?.()} update={update} updateCheck={!!ctx.options.updateCheck} />,
      );
    }),
  );

  router.on(
    "POST",
    "/dashboard/account/password",
    action(async (ctx, session, form) => {
      const password = form.get("password") ?? "";
      if (password !== (form.get("confirm") ?? "")) return render(400, <AccountPage session={session} errors={{ confirm: "The two passwords differ." }} />);
      try {
        await ctx.services.users.changePassword(session.user.id, session.viaLink ? null : (form.get("current") ?? ""), password);
      } catch (error) {
        return render(400, <AccountPage session={session} errors={fieldErrors(error)} />);
      }
      // Every session of the user ended with the change; this browser gets a fresh one.
      return signInAs(ctx, session.user.id, "/dashboard/account?notice=password");
    }, "read"),
  );
}
