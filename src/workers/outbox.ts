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
  /** Claims up to `limit` items due at `now` for `leaseMs` (shared fairly between endpoints and accounts, see outboxLeases). */
  claim(now: number, limit: number): Promise<T[]>;
  /** How many items this process sends at once. */
  concurrency: number;
  /** The keys an item is sent under (its endpoint, its account), each with the most items in flight at once. */
  keysOf(item: T): string[];
  limits: number[];
  /** The most items this process holds at once, sent or waiting for their keys (a claim takes several of a key). */
  maxHeld: number;
  /** How long a claim holds; the claims this process holds are extended long before they end. */
  leaseMs: number;
  /** Extends every claim this process holds to `now + leaseMs`. */
  extend(now: number): Promise<void>;
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

/** The running loop: `finish()` stops it taking work and resolves when every send under way has ended. */
export interface OutboxLoop {
  wake(): void;
  finish(): Promise<void>;
}

/**
 * Sends an outbox, up to `concurrency` items at once and at most `limits` per key: at start (what a crash or a
 * stop left), right after a commit queued work, whenever a send ends, when the next retry falls due, and on a
 * slow poll. Claimed items wait here for their keys; every claim this process holds is extended while it
 * lives, so that no other process takes an item from it, however long a send (or the wait before it).
 */
export function startOutboxLoop<T>(work: OutboxWork<T>): OutboxLoop {
  let timer: ReturnType<typeof setTimeout> | null = null;
  let filling: Promise<void> | null = null;
  let again = false;
  let stopped = false;
  const waiting: T[] = [];
  const sending = new Set<Promise<void>>();
  const inFlight = new Map<string, number>();
  let heartbeat: ReturnType<typeof setInterval> | null = null;

  const count = (keys: string[], by: number) => {
    for (const key of keys) inFlight.set(key, (inFlight.get(key) ?? 0) + by);
  };

  function send(item: T, keys: string[]): void {
    count(keys, 1);
    const sent: Promise<void> = work
      .deliver(item)
      .catch((error: unknown) => work.onError(error))
      .finally(() => {
        count(keys, -1);
        sending.delete(sent);
        if (sending.size === 0 && waiting.length === 0 && heartbeat) {
          clearInterval(heartbeat);
          heartbeat = null;
        }
        wake();
      });
    sending.add(sent);
  }

  /** Starts the waiting items whose keys have room, soonest claimed first, while slots are free. */
  function dispatch(): void {
    for (let i = 0; i < waiting.length && sending.size < work.concurrency && !stopped; ) {
      const keys = work.keysOf(waiting[i]!).map((key, k) => `${k}:${key}`);
      if (keys.every((key, k) => (inFlight.get(key) ?? 0) < work.limits[k]!)) send(waiting.splice(i, 1)[0]!, keys);
      else i += 1;
    }
    if (waiting.length + sending.size > 0) {
      heartbeat ??= setInterval(() => work.extend(Date.now()).catch((error: unknown) => work.onError(error)), work.leaseMs / 3);
    }
  }

  async function fill(): Promise<void> {
    for (;;) {
      again = false;
      dispatch();
      const room = work.maxHeld - waiting.length - sending.size;
      // Every slot busy, or nothing more may be held: the end of a send wakes the loop again.
      if (stopped || room <= 0 || sending.size >= work.concurrency) return;
      const claimed = await work.claim(Date.now(), room);
      // Claimed after a stop: let go (with the rest of this process's claims) by the sender's stop.
      if (stopped) return;
      waiting.push(...claimed);
      if (claimed.length < room && !again) break;
    }
    dispatch();
    // Items due now but not claimed wait on their endpoint or account: the end of a send, or the poll, brings them.
    const next = await work.nextDueAt();
    if (next !== null && !stopped && next > Date.now()) timer = setTimeout(wake, Math.min(MAX_WAIT, next - Date.now()));
  }

  function wake(): void {
    if (stopped) return;
    if (filling) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    timer = null;
    filling = fill()
      .catch((error: unknown) => {
        work.onError(error);
        if (!stopped) timer = setTimeout(wake, work.errorRetryMs);
      })
      .finally(() => {
        filling = null;
        if (again && !stopped) wake();
      });
  }

  // Deferred, so that the answer that queued the work goes out before any work on it starts.
  const unsubscribe = work.onQueued(() => setImmediate(wake));
  const poll = setInterval(wake, work.pollMs);
  wake();

  return {
    wake,
    async finish() {
      stopped = true;
      unsubscribe();
      clearInterval(poll);
      if (timer) clearTimeout(timer);
      await filling;
      // What waited is let go by the sender's stop, and goes out at once from another process or after a restart.
      waiting.length = 0;
      await Promise.all([...sending]);
      if (heartbeat) clearInterval(heartbeat);
    },
  };
}

/**
 * Waits for `finished` for at most `graceMs`, then calls `cutShort` (which aborts what is still under way) and
 * waits for it to end: the shutdown budget of a sender's stop.
 */
export async function withinGrace(finished: Promise<void>, graceMs: number, cutShort: () => void): Promise<void> {
  let graceTimer: ReturnType<typeof setTimeout> | undefined;
  const grace = new Promise<void>((resolve) => (graceTimer = setTimeout(resolve, graceMs)));
  await Promise.race([finished, grace]);
  clearTimeout(graceTimer);
  cutShort();
  await finished;
}
