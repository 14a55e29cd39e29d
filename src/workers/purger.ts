import { counted } from "../lib/plural.ts";
import type { ActivityService } from "../services/people/activity.ts";
import type { RetentionService } from "../services/retention.ts";
import type { IdempotencyService } from "../services/submissions/idempotency.ts";
import type { PaymentsService } from "../services/payments/payments.ts";
import { IDEMPOTENCY_WINDOW_MS } from "../services/submissions/write.ts";

export interface PurgerOptions {
  /** Time between purges; an hour unless a test says otherwise. */
  intervalMs: number;
  /** The clock the purge measures ages by: injectable, so that a test need not wait for days to pass. */
  now: () => number;
  log: { line(text: string): void; error(message: string, error: unknown): void };
  /** The activity log and how many days it keeps (`--activity-days`); absent: the log is not purged here. */
  activity?: { service: ActivityService; days: number };
  /** The public posts' Idempotency-Keys, purged 24 hours after their post; absent: not purged here. */
  idempotency?: IdempotencyService;
  /** Payments awaiting for more than a day with no event from Stripe, asked for their session's state once; absent: not asked. */
  payments?: Pick<PaymentsService, "settleStale">;
}

/** The running purger: stop it before the database closes. */
export interface Purger {
  /** Resolves when the purge under way (if any) has finished its batch. */
  stop(): Promise<void>;
  /** The purge started last: for tests and for the start-up line. */
  readonly last: Promise<void>;
}

/**
 * Applies the forms' retention at start and then every interval, beside the server: the purge deletes in
 * small transactions, so submissions go on being stored while it runs. One purge at a time.
 */
export function startPurger(retention: RetentionService, options: PurgerOptions): Purger {
  let stopped = false;
  let running: Promise<void> = Promise.resolve();
  let busy = false;

  async function purge(): Promise<void> {
    busy = true;
    try {
      const counts = await retention.purge(options.now(), { stopped: () => stopped });
      const total = Object.values(counts).reduce((a, b) => a + b, 0);
      if (total > 0) options.log.line(`purged ${counted(total, "submission")} past their forms' retention (${counted(Object.keys(counts).length, "form")})`);
      if (options.activity && !stopped) {
        const old = await options.activity.service.purge(options.now() - options.activity.days * 86_400_000);
        if (old > 0)
          options.log.line(`purged ${counted(old, "activity log entry", "activity log entries")} older than ${counted(options.activity.days, "day")}`);
      }
      if (options.idempotency && !stopped) await options.idempotency.purge(options.now() - IDEMPOTENCY_WINDOW_MS);
      if (options.payments && !stopped) {
        const asked = await options.payments.settleStale(options.now());
        if (asked > 0) options.log.line(`asked Stripe about ${counted(asked, "payment")} awaiting for more than a day`);
      }
    } catch (error) {
      options.log.error("retention purge failed", error);
    } finally {
      busy = false;
    }
  }

  running = purge();
  const timer = setInterval(() => {
    if (!busy && !stopped) running = purge();
  }, options.intervalMs);
  return {
    get last() {
      return running;
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
