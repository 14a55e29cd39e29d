/** @jsxImportSource hono/jsx */
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { action, fieldErrors, signedIn } from "./guard.tsx";
import { ownerOf, page } from "./http.ts";
import { ErasePage, type ErasureResult } from "./pages/erase.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** The erasure of a person's data (admin): what would go, then the erasure itself. */
export function erasePageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/erase",
    signedIn(async (_ctx, session) => render(200, <ErasePage session={session} />), "admin"),
  );

  router.on(
    "POST",
    "/dashboard/erase",
    action(async (ctx, session, body) => {
      const email = (body.get("email") ?? "").trim();
      const dryRun = body.get("mode") !== "erase";
      try {
        const result: ErasureResult = { email, dryRun, total: 0, forms: [] };
        for (const mode of ["live", "test"] as const) {
          const principal = ownerOf(session, mode);
          const erased = await ctx.services.retention.erase(principal, { email, dryRun });
          const forms = await ctx.services.forms.list(principal);
          result.total += erased.erased;
          for (const [formId, count] of Object.entries(erased.forms))
            result.forms.push({ name: forms.find((f) => f.id === formId)?.name ?? formId, mode, count });
        }
        return render(200, <ErasePage session={session} result={result} email={email} />);
      } catch (error) {
        return render(400, <ErasePage session={session} email={email} errors={fieldErrors(error)} />);
      }
    }, "admin"),
  );
}
