import { hostname } from "node:os";
import { randomBase62 } from "../lib/random.ts";

/**
 * The name a sender claims outbox items under: host, process id and a random part, so that a claim says which
 * instance holds it and a restarted process (perhaps given the same pid) is never taken for its former self.
 */
export const workerName = () => `${hostname()}:${process.pid}:${randomBase62(8)}`;

/** The longest a timer may wait (setTimeout's own limit is about 24.8 days). */
const MAX_WAIT = 2 ** 31 - 1;

/** One kind of outbound work (notification emails, webhook deliveries) as the loop that sends it sees it. */
export interface OutboxWork<T> {
  /** The items due now, at most a batch, claimed for `leaseMs` from `now` (several processes share the outbox). */
  due(now: number): Promise<T[]>;
  /** How long a claim holds. */
  leaseMs: number;
  /** The longest one send can take: an item is sent only while at least this much of its lease is left. */
  sendMs: number;
  /** Sends one item and records what became of it. */
  deliver(item: T): Promise<void>;
  /** When the next item falls due, or null when none waits. */
  nextDueAt(): Promise<number | null>;
  /** Calls the listener after a commit queued new items; returns the unsubscribe. */
  onQueued(listener: () => void): () => void;
  /** How often to look again when nothing here woke the loop (another process may have queued work). */
  pollMs: number;
  /** How long to wait after the database itself failed, rather than retry in a tight loop. */
  errorRetryMs: number;
  onError(error: unknown): void;
}

/** The running loop: `finish()` stops it taking work and gives the round under way, if any. */
export interface OutboxLoop {
  wake(): void;
  readonly stopped: boolean;
  finish(): Promise<void> | null;
}

/**
 * Sends an outbox: at start (what a crash or a stop left), right after a commit queued work, when the next
 * retry falls due, and on a slow poll. One round at a time; a wake during a round makes another round.
 */
export function startOutboxLoop<T>(work: OutboxWork<T>): OutboxLoop {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  async function drain(): Promise<void> {
    for (;;) {
      again = false;
      const claimedAt = Date.now();
      const due = await work.due(claimedAt);
      for (const item of due) {
        if (stopped) return;
        // The rest of the batch waits out its lease rather than risk a send that outlasts it (another process
        // would then claim and send it too): the lease ends, and whoever claims it next sends it.
        if (Date.now() + work.sendMs > claimedAt + work.leaseMs) break;
        await work.deliver(item);
      }
      if (stopped) return;
      if (due.length === 0 && !again) break;
    }
    const next = await work.nextDueAt();
    if (next !== null && !stopped) timer = setTimeout(wake, Math.min(MAX_WAIT, Math.max(0, next - Date.now())));
  }

  function wake(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    running = drain()
      .catch((error: unknown) => {
        work.onError(error);
        if (!stopped) timer = setTimeout(wake, work.errorRetryMs);
      })
      .finally(() => {
        running = null;
        if (again && !stopped) wake();
      });
  }

  // Deferred, so that the answer that queued the work goes out before any work on it starts.
  const unsubscribe = work.onQueued(() => setImmediate(wake));
  const poll = setInterval(wake, work.pollMs);
  wake();

  return {
    wake,
    get stopped() {
      return stopped;
    },
    finish() {
      stopped = true;
      unsubscribe();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      return running;
    },
  };
}
