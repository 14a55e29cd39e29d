/** @jsxImportSource hono/jsx */
import type { Handler } from "../http/context.ts";
import type { Router } from "../http/router.ts";
import { action, noticeOf, signedIn } from "./guard.tsx";
import { ownForm, page, redirect } from "./http.ts";
import { DeliveriesPage, EndpointsSection, NotificationsSection } from "./pages/deliveries.tsx";
import { PAGE_SIZE } from "./pages/inbox.tsx";
import { webhookDeliveriesSection } from "./pages/webhooks.tsx";

const render = (status: number, element: unknown) => page(status, String(element));

/** A form's deliveries: emails and webhook deliveries, a retry of each, a test email. */
export function deliveriesPageRoutes(router: Router<Handler>): void {
  router.on(
    "GET",
    "/dashboard/forms/:id/deliveries",
    signedIn(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      const pageNumber = Math.max(1, Number.parseInt(ctx.url.searchParams.get("page") ?? "1", 10) || 1);
      const list = await ctx.services.notifications.list(principal, row.id, { limit: PAGE_SIZE, offset: (pageNumber - 1) * PAGE_SIZE });
      const form = ctx.services.forms.toForm(row);
      const webhooks = await ctx.services.webhooks.list(principal, row.id);
      const destinations = await ctx.services.destinations.list(principal, row.id);
      const deliveries = await ctx.services.webhooks.deliveries(principal, row.id, null, { limit: PAGE_SIZE, offset: 0 });
      const sections = [
        NotificationsSection({
          session,
          form,
          notifications: list.notifications,
          page: pageNumber,
          hasMore: list.pagination.hasMore,
          mailServer: ctx.options.mail?.server ?? null,
        }),
        EndpointsSection({ form, circuits: await ctx.services.webhooks.circuits(row.id, Date.now()) }),
        webhookDeliveriesSection({ session, form, deliveries: deliveries.deliveries, webhooks, destinations }),
      ];
      return render(200, <DeliveriesPage session={session} form={form} sections={sections} notice={noticeOf(ctx)} />);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/emails/:notificationId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.notifications.retryOne(principal, row.id, ctx.params.notificationId!, Date.now());
      // Without a mail server nothing goes out at once, and the page must not say it does.
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=${ctx.options.mail ? "retried" : "retriedmailoff"}`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/test-email",
    action(async (ctx, session) => {
      const { row } = await ownForm(ctx, session, ctx.params.id!);
      const mail = ctx.options.mail;
      if (!mail) return redirect(`/dashboard/forms/${row.id}/deliveries?notice=mailoff`);
      try {
        await mail.send({
          to: session.user.email,
          subject: "formsvc test email",
          text: `This is a test email from formsvc, sent from the deliveries page of "${row.name}" through ${mail.server}.\n`,
        });
      } catch (error) {
        ctx.options.log.error("the test email could not be sent", error);
        return redirect(`/dashboard/forms/${row.id}/deliveries?notice=testemailfailed`);
      }
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=testemail`);
    }),
  );

  router.on(
    "POST",
    "/dashboard/forms/:id/deliveries/webhooks/:deliveryId/retry",
    action(async (ctx, session) => {
      const { principal, row } = await ownForm(ctx, session, ctx.params.id!);
      await ctx.services.webhooks.retry(principal, row.id, ctx.params.deliveryId!);
      return redirect(`/dashboard/forms/${row.id}/deliveries?notice=redelivered#webhooks`);
    }),
  );
}
