import type { Resolver } from "../lib/address.ts";
import { settingFromEnv } from "../config.ts";
import { signWebhook } from "../lib/webhook-message.ts";
import { startOutboxLoop, withinGrace, workerName } from "./outbox.ts";
import { requestOnce } from "../lib/http-request.ts";
import { newTokenCache, sendToDestination } from "../services/outbox/senders/index.ts";
import { HELD_PER_SLOT, WEBHOOK_LIMITS } from "../services/outbox/shares.ts";
import type { OutgoingDelivery } from "../services/outbox/deliveries.ts";
import type { AttemptResult } from "../services/outbox/destination-types/kind.ts";
import type { WebhooksService } from "../services/outbox/webhooks.ts";

/** How many deliveries one process sends at once (each endpoint and account also has its own limit, see outbox-shares). */
const CONCURRENCY = 16;

export interface WebhookSenderOptions {
  /** Multiplies every delay of the schedule (tests run with 0.001). */
  retryScale: number;
  /** Skip the address checks (--webhooks-allow-private). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** A receiver's time to answer; 10 s unless a test needs less. */
  timeoutMs?: number;
  /** How long a claim lasts; twice the longest send unless a test wants a killed process's items back sooner. */
  leaseMs?: number;
  userAgent: string;
  /** How many deliveries are sent at once; CONCURRENCY unless a test needs another. */
  concurrency?: number;
  log: { line(text: string): void; error(message: string, error: unknown): void };
}

export interface WebhookSender {
  wake(): void;
  /**
   * Stops claiming and lets the sends under way finish and be recorded, for at most `graceMs` (a receiver's
   * timeout and a little); one still going then is cut short and left pending, to go out after a restart.
   */
  stop(graceMs?: number): Promise<void>;
}

/** The request's headers: Standard Webhooks' three, signed, for a standard endpoint; plain JSON for a chat. */
function headersFor(delivery: OutgoingDelivery, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": userAgent,
    "content-length": String(Buffer.byteLength(delivery.payload)),
  };
  if (delivery.format === "standard") {
    const timestamp = Math.floor(Date.now() / 1000);
    headers["webhook-id"] = delivery.messageId;
    headers["webhook-timestamp"] = String(timestamp);
    headers["webhook-signature"] = signWebhook([delivery.secret, delivery.previousSecret], delivery.messageId, timestamp, delivery.payload);
  }
  return headers;
}

/** POSTs a webhook's body once, to the very addresses that were checked (see requestOnce); redirects are not followed. */
export async function postOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; resolve: Resolver; timeoutMs: number; signal: AbortSignal },
): Promise<AttemptResult> {
  const answer = await requestOnce(url, { method: "POST", headers, body }, options);
  return { ok: answer.ok, responseStatus: answer.status, durationMs: answer.durationMs, responseSnippet: answer.snippet, error: answer.error };
}

/**
 * Sends the webhook outbox: at start (what a crash or a stop left), right after a submission queued events,
 * and when the next retry falls due. Each batch is claimed with a lease first, so that several server
 * processes on one database share the work without sending a delivery twice.
 */
export function startWebhookSender(webhooksService: WebhooksService, options: WebhookSenderOptions): WebhookSender {
  const worker = workerName();
  const timeoutMs = options.timeoutMs ?? settingFromEnv("webhookTimeoutMs");
  // A send ends at its timeout, with a margin for the address look-up; the loop extends a claim every third of
  // it, so that a claim outlives the attempt of a live process by far, and a dead one's is free again soon.
  const sendMs = Math.round(timeoutMs * 1.5);
  const leaseMs = options.leaseMs ?? sendMs * 2;
  const abort = new AbortController();
  // Endpoints whose circuit this process saw open, until when: what it holds for them waits, unsent.
  const openUntil = new Map<string, number>();

  const tokens = newTokenCache();

  async function deliver(delivery: OutgoingDelivery): Promise<void> {
    if ((openUntil.get(delivery.endpointId) ?? 0) > Date.now()) {
      await webhooksService.letGo(delivery.id, worker);
      return;
    }
    const request = { allowPrivate: options.allowPrivate, resolve: options.resolve, timeoutMs, signal: abort.signal };
    const outcome = delivery.destination
      ? await sendToDestination(delivery.destination, delivery.payload, { ...request, userAgent: options.userAgent, tokens })
      : await postOnce(new URL(delivery.url), delivery.payload, headersFor(delivery, options.userAgent), request);
    // Cut short by stop() before an answer came: not an attempt; released below, it goes out after the restart.
    // One that was answered is recorded, even during the stop, so that a restart does not send it again.
    if (abort.signal.aborted && outcome.responseStatus === null) return;
    const { status, circuitOpenUntil } = await webhooksService.recordAttempt(delivery, worker, outcome, Date.now(), options.retryScale);
    if (circuitOpenUntil === null) openUntil.delete(delivery.endpointId);
    else openUntil.set(delivery.endpointId, circuitOpenUntil);
    const kind = delivery.destination ? `${delivery.destination.type} delivery` : "webhook delivery";
    const what = `${kind} ${delivery.id} (${delivery.messageId}) attempt ${delivery.attempts + 1}`;
    if (outcome.ok) options.log.line(`${what}: ${outcome.responseStatus} in ${Math.round(outcome.durationMs)}ms`);
    else options.log.line(`${what} failed, ${status === "failed" ? "gave up" : "will retry"}: ${outcome.error}`);
    if (circuitOpenUntil !== null)
      options.log.line(
        `${delivery.destination ? "destination" : "webhook"} ${delivery.endpointId}: failing, paused until ${new Date(circuitOpenUntil).toISOString()}`,
      );
  }

  const loop = startOutboxLoop({
    claim: (now, limit) => webhooksService.claimDue(worker, now, leaseMs, limit),
    concurrency: options.concurrency ?? CONCURRENCY,
    keysOf: (delivery) => [delivery.endpointId, delivery.accountId],
    limits: [WEBHOOK_LIMITS.perEndpoint, WEBHOOK_LIMITS.perAccount],
    maxHeld: (options.concurrency ?? CONCURRENCY) * HELD_PER_SLOT,
    leaseMs,
    extend: (now) => webhooksService.extend(worker, now, leaseMs),
    deliver,
    nextDueAt: () => webhooksService.nextDueAt(),
    onQueued: (listener) => webhooksService.onQueued(listener),
    // Another process (the local CLI's redeliver, a second server) cannot wake this one: look again now and then.
    pollMs: Math.max(250, Math.min(5_000, 5_000 * options.retryScale)),
    errorRetryMs: 1_000,
    onError: (error) => options.log.error("webhook sender", error),
  });

  return {
    wake: loop.wake,
    async stop(graceMs = sendMs) {
      await withinGrace(loop.finish(), graceMs, () => abort.abort());
      await webhooksService.release(worker);
    },
  };
}
