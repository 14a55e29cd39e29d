import type { Store } from "../db/client.ts";
import { accountsService } from "./accounts.ts";
import { activityService } from "./people/activity.ts";
import { filesService } from "./files.ts";
import { formsService } from "./forms.ts";
import { keysService } from "./keys.ts";
import { notificationsService } from "./outbox/notifications.ts";
import { optInService } from "./submissions/opt-in.ts";
import { pageViewsService } from "./page-views.ts";
import { retentionService } from "./retention.ts";
import { settingsService } from "./settings.ts";
import { spamService } from "./spam/verdict.ts";
import { submissionBulkService } from "./submissions/bulk.ts";
import { submissionsService } from "./submissions/submissions.ts";
import { idempotencyService } from "./submissions/idempotency.ts";
import { intakeService } from "./submissions/intake.ts";
import { teamService } from "./people/team.ts";
import { usersService } from "./people/users.ts";
import type { PublicUrls } from "./urls.ts";
import { defaultWebhookOptions, webhooksService, type WebhookOptions } from "./outbox/webhooks.ts";
import { destinationsService } from "./outbox/destinations.ts";
import { NO_PAYMENTS, paymentsService } from "./payments/payments.ts";
import type { StripeSettings } from "./payments/stripe.ts";

/** The domain, used alike by the HTTP routes and the local CLI. */
export function createServices(store: Store, urls: PublicUrls, options: { webhooks?: WebhookOptions; payments?: StripeSettings } = {}) {
  const stripe = options.payments ?? NO_PAYMENTS;
  const forms = formsService(store, urls, { paymentsConfigured: () => stripe.secretKey !== null });
  const notifications = notificationsService(store, forms, () => ((urls.known?.() ?? true) ? urls.baseUrl() : null));
  const files = filesService(store, forms);
  const webhooks = webhooksService(store, forms, urls, options.webhooks ?? defaultWebhookOptions);
  const destinations = destinationsService(store, forms, options.webhooks ?? defaultWebhookOptions);
  const spam = spamService(store);
  const optIn = optInService(store, urls, { notifications, webhooks });
  const submissions = submissionsService(store, forms, notifications, files, webhooks, spam.filter, optIn);
  const idempotency = idempotencyService(store);
  const payments = paymentsService(store, urls, { notifications, webhooks }, stripe);
  return {
    store,
    urls,
    accounts: accountsService(store),
    forms,
    keys: keysService(store, forms),
    submissions,
    optIn,
    intake: intakeService(forms, submissions, spam, idempotency, urls, payments),
    payments,
    idempotency,
    submissionBulk: submissionBulkService(store, forms, submissions),
    spam,
    files,
    notifications,
    webhooks,
    destinations,
    settings: settingsService(store),
    users: usersService(store),
    team: teamService(store),
    retention: retentionService(store),
    activity: activityService(store),
    pageViews: pageViewsService(store),
  };
}

export type Services = ReturnType<typeof createServices>;
