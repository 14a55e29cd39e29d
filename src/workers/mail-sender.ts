import { headerSafe, type Mailbox } from "../lib/mail.ts";
import { needsSmtpUtf8, planAddresses, type AddressPlan } from "../lib/mail-address.ts";
import { chooseTransport, openTransport, withoutSecrets } from "../lib/mail-transports/index.ts";
import { MailRefusal } from "../lib/mail-transports/kind.ts";
import { SMTP_POOL } from "../lib/mail-transports/smtp.ts";
import { withoutAddresses, type MailStatusService } from "../services/outbox/mail-status.ts";
import { startOutboxLoop, withinGrace, workerName } from "./outbox.ts";
import type { NotificationsService, OutgoingNotification } from "../services/outbox/notifications.ts";
import { HELD_PER_SLOT } from "../services/outbox/shares.ts";

/** How many notifications one process sends at once, over as many pooled SMTP connections (one per account at a time). */
const CONCURRENCY = SMTP_POOL;
/** How often the queue is looked at even when nothing here woke the sender. */
const POLL_MS = 60_000;
/** How long a stop waits for a send under way (systemd's default stop timeout is 90 s). */
const STOP_GRACE_MS = 20_000;

export interface SenderOptions {
  /** The transport's address with its credentials (docs/deploy.md, "Choosing a mail transport"). */
  mailUrl: string;
  from: Mailbox;
  retryBaseMs: number;
  /** The longest one step of a send may wait on the mail server (connecting, its greeting, each answer); 10 s. */
  timeoutMs?: number;
  /** How long a claim lasts; twice the longest send unless a test wants a killed process's items back sooner. */
  leaseMs?: number;
  log: { line(text: string): void; error(message: string, error: unknown): void };
  /** Where the last mail sent and the last failure are kept for the Account page. */
  status?: MailStatusService;
}

/** The running sender: stop it before the database closes. */
export interface NotificationSender {
  /** Sends whatever is due now (also called after each submission that queued a notification). */
  wake(): void;
  /**
   * Stops taking work and lets a send under way finish (and be marked sent), for at most `graceMs`; a send
   * still going then is cut short and left pending, to go out after a restart.
   */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Text for the server's log, which outlives an erasure: an answer may quote the recipient (a submitter's
 * address, for a confirmation), so addresses are blanked, and control characters shown escaped. The
 * notification's id finds its entry, which holds the whole answer until the entry is erased.
 */
function logSafe(text: string): string {
  return withoutAddresses(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Sends the pending notifications of the outbox through the transport of --mail-url, a few at once (one
 * per account at a time; over SMTP, a small pool of connections): at start (what a crash left),
 * right after a submission queued one, and on a timer when the next retry is due. A failed attempt is tried
 * again after the backoff of RETRY_STEPS and marked failed after the last. It runs beside the server and
 * never holds up an answer: a submission only wakes it.
 */
export function startSender(notifications: NotificationsService, options: SenderOptions): NotificationSender {
  const worker = workerName();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const chosen = chooseTransport(options.mailUrl);
  const transport = openTransport(chosen, timeoutMs);
  // The longest a send takes before one of those timeouts ends it: connecting, the greeting, then a few answers
  // to wait for. A claim lasts for two of them, and the loop extends it while the send goes on.
  const sendMs = timeoutMs * 5;
  const leaseMs = options.leaseMs ?? sendMs * 2;
  const abort = new AbortController();

  /** An error as one line for lastError and the log: no control characters, no password. */
  function describe(error: unknown): string {
    return withoutSecrets(headerSafe(error instanceof Error ? error.message : String(error)) || "unknown error", chosen.secrets);
  }

  /** Keeps the outcome for the Account page; a failure to keep it is logged, never a failed send. */
  async function remember(kind: "sent" | "failed", what: string, detail: string): Promise<void> {
    await options.status?.[kind](what, detail).catch((error) => options.log.error("mail status", error));
  }

  /**
   * The addresses the notification can go out with: when one of them needs SMTPUTF8, the server is asked whether
   * it offers it (a short conversation of its own, only then), and what it cannot take is refused or left out.
   */
  async function addressesOf(notification: OutgoingNotification): Promise<AddressPlan> {
    const wanted = { from: options.from.address, to: notification.to, cc: notification.cc, replyTo: notification.replyTo };
    return planAddresses(wanted, needsSmtpUtf8(wanted) && (await transport.takesUtf8Addresses()));
  }

  async function deliver(notification: OutgoingNotification): Promise<void> {
    let note: string | null = null;
    let answer = "";
    try {
      const plan = await addressesOf(notification);
      if (plan.refusal) {
        await notifications.markRefused(notification, worker, plan.refusal);
        options.log.line(`notification ${notification.id}: refused: ${logSafe(plan.refusal)}`);
        return;
      }
      note = plan.note;
      const { from, to, cc, replyTo } = plan.addresses;
      answer = await transport.send(
        {
          from: { name: notification.fromName ?? options.from.name, address: from },
          to: [to],
          cc,
          replyTo,
          subject: notification.subject,
          // What was left out is said in the message too: the owner may still want to answer or copy by hand.
          text: note ? `${notification.text}\n${note}\n` : notification.text,
          id: notification.id,
        },
        abort.signal,
      );
    } catch (error) {
      // Cut short by stop(): not an attempt that failed; it stays pending and goes out after the restart.
      if (abort.signal.aborted) return;
      const reason = describe(error);
      const permanent = error instanceof MailRefusal && error.permanent;
      await remember("failed", notification.kind, `${notification.id}: ${reason}`);
      const status = await notifications.markAttemptFailed(notification, worker, reason, Date.now(), options.retryBaseMs, permanent);
      const outcome = status === "failed" ? (permanent ? "refused for good, not retried" : "gave up") : "will retry";
      options.log.line(`notification ${notification.id}: attempt ${notification.attempts + 1} failed, ${outcome}: ${logSafe(reason)}`);
      return;
    }
    await notifications.markSent(notification, worker, Date.now(), note);
    await remember("sent", notification.kind, `${notification.id}: ${withoutSecrets(headerSafe(answer), chosen.secrets)}`);
    options.log.line(`notification ${notification.id} sent${note ? `: ${logSafe(note)}` : ""}`);
  }

  const loop = startOutboxLoop({
    claim: (now, limit) => notifications.claimDue(worker, now, leaseMs, limit),
    concurrency: CONCURRENCY,
    // One message in flight per account (see mailShare).
    keysOf: (notification) => [notification.accountId],
    limits: [1],
    maxHeld: CONCURRENCY * HELD_PER_SLOT,
    leaseMs,
    extend: (now) => notifications.extend(worker, now, leaseMs),
    deliver,
    nextDueAt: () => notifications.nextDueAt(),
    onQueued: (listener) => notifications.onQueued(listener),
    // Another process (the local CLI's `notifications retry`) cannot wake this one: look again now and then.
    pollMs: Math.max(1_000, Math.min(POLL_MS, options.retryBaseMs)),
    // The database failed us, not the mail server: try again later rather than in a tight loop.
    errorRetryMs: options.retryBaseMs,
    onError: (error) => options.log.error("notification sender", error),
  });

  return {
    wake: loop.wake,
    async stop(graceMs = STOP_GRACE_MS) {
      await withinGrace(loop.finish(), graceMs, () => abort.abort());
      transport.close();
      await notifications.release(worker);
    },
  };
}
