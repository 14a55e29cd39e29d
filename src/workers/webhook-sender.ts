import { BlockedAddress, checkedAddresses, hostBlockedReason, type Resolver } from "../lib/address.ts";
import { settingFromEnv } from "../config.ts";
import { signWebhook } from "../lib/webhook-message.ts";
import { startOutboxLoop, withinGrace, workerName } from "./outbox.ts";
import { HELD_PER_SLOT, WEBHOOK_LIMITS } from "../services/outbox/shares.ts";
import type { AttemptResult, OutgoingDelivery } from "../services/outbox/deliveries.ts";
import type { WebhooksService } from "../services/outbox/webhooks.ts";

/** How many deliveries one process sends at once (each endpoint and account also has its own limit, see outbox-shares). */
const CONCURRENCY = 16;
/** How much of an answer the delivery log keeps. */
const SNIPPET = 500;

export interface WebhookSenderOptions {
  /** Multiplies every delay of the schedule (tests run with 0.001). */
  retryScale: number;
  /** Skip the address checks (--webhooks-allow-private). */
  allowPrivate: boolean;
  resolve: Resolver;
  /** A receiver's time to answer; 10 s unless a test needs less. */
  timeoutMs?: number;
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

/** A line of text fit for the log and the delivery list: no control characters, bounded. */
const oneLine = (text: string) =>
  text
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .trim()
    .slice(0, SNIPPET);

/**
 * POSTs the body once, to the very addresses that were checked: the connection's own look-up is replaced by
 * one that resolves, refuses any special address and hands over what it checked, so that a name cannot
 * resolve to a public address for the check and a private one for the connection. Redirects are not followed.
 */
export function postOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  options: { allowPrivate: boolean; resolve: Resolver; timeoutMs: number; signal: AbortSignal },
): Promise<AttemptResult> {
  const started = performance.now();
  const result = (partial: Partial<AttemptResult>): AttemptResult => ({
    ok: false,
    responseStatus: null,
    responseSnippet: null,
    error: null,
    durationMs: performance.now() - started,
    ...partial,
  });
  return new Promise<AttemptResult>((done) => {
    const lookup = (host: string, lookupOptions: { all?: boolean }, callback: (...args: unknown[]) => void) => {
      const found = options.allowPrivate ? options.resolve(host) : checkedAddresses(host, options.resolve);
      found.then(
        (addresses) => (lookupOptions?.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
        (error: unknown) => callback(error),
      );
    };
    // An address written in the URL, or a name such as localhost, is refused before any connection is tried.
    const blocked = options.allowPrivate ? null : hostBlockedReason(url.hostname);
    // Node's HTTP client is loaded by the first delivery, not by every start of the server.
    const precheck: Promise<typeof import("node:http")> = blocked
      ? Promise.reject(new BlockedAddress(blocked))
      : url.protocol === "https:"
        ? (import("node:https") as unknown as Promise<typeof import("node:http")>)
        : import("node:http");
    precheck.then(
      (client) => {
        const request = client.request(
          url,
          { method: "POST", headers, lookup: lookup as never, signal: options.signal, timeout: options.timeoutMs },
          (response) => {
            const chunks: Buffer[] = [];
            let size = 0;
            response.on("data", (chunk: Buffer) => {
              if (size < SNIPPET * 4) chunks.push(chunk);
              size += chunk.length;
              if (size >= SNIPPET * 4) response.destroy();
            });
            const finish = () => {
              const status = response.statusCode ?? 0;
              done(
                result({
                  ok: status >= 200 && status < 300,
                  responseStatus: status,
                  responseSnippet: oneLine(Buffer.concat(chunks).toString("utf8")) || null,
                  error: status >= 200 && status < 300 ? null : `answered ${status}`,
                }),
              );
            };
            response.on("end", finish);
            response.on("close", finish);
            response.on("error", finish);
          },
        );
        const timer = setTimeout(() => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)), options.timeoutMs);
        request.on("close", () => clearTimeout(timer));
        request.on("timeout", () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)));
        request.on("error", (error: Error) =>
          done(result({ error: oneLine(error instanceof BlockedAddress ? `refused: ${error.message}` : error.message || String(error)) })),
        );
        request.end(body);
      },
      (error: Error) => done(result({ error: oneLine(`refused: ${error.message}`) })),
    );
  });
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
  const leaseMs = sendMs * 2;
  const abort = new AbortController();
  // Endpoints whose circuit this process saw open, until when: what it holds for them waits, unsent.
  const openUntil = new Map<string, number>();

  async function deliver(delivery: OutgoingDelivery): Promise<void> {
    if ((openUntil.get(delivery.webhookId) ?? 0) > Date.now()) {
      await webhooksService.letGo(delivery.id, worker);
      return;
    }
    const outcome = await postOnce(new URL(delivery.url), delivery.payload, headersFor(delivery, options.userAgent), {
      allowPrivate: options.allowPrivate,
      resolve: options.resolve,
      timeoutMs,
      signal: abort.signal,
    });
    // Cut short by stop() before an answer came: not an attempt; released below, it goes out after the restart.
    // One that was answered is recorded, even during the stop, so that a restart does not send it again.
    if (abort.signal.aborted && outcome.responseStatus === null) return;
    const { status, circuitOpenUntil } = await webhooksService.recordAttempt(delivery, worker, outcome, Date.now(), options.retryScale);
    if (circuitOpenUntil === null) openUntil.delete(delivery.webhookId);
    else openUntil.set(delivery.webhookId, circuitOpenUntil);
    const what = `webhook delivery ${delivery.id} (${delivery.messageId}) attempt ${delivery.attempts + 1}`;
    if (outcome.ok) options.log.line(`${what}: ${outcome.responseStatus} in ${Math.round(outcome.durationMs)}ms`);
    else options.log.line(`${what} failed, ${status === "failed" ? "gave up" : "will retry"}: ${outcome.error}`);
    if (circuitOpenUntil !== null) options.log.line(`webhook ${delivery.webhookId}: failing, paused until ${new Date(circuitOpenUntil).toISOString()}`);
  }

  const loop = startOutboxLoop({
    claim: (now, limit) => webhooksService.claimDue(worker, now, leaseMs, limit),
    concurrency: options.concurrency ?? CONCURRENCY,
    keysOf: (delivery) => [delivery.webhookId, delivery.accountId],
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
