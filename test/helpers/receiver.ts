/** One request a receiver got: its headers and body, as sent. */
export interface ReceivedCall {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** What the receiver answers to call number `n` (from 0): a status and a body, or never (hangs until stopped). */
export type Answer = (n: number, call: ReceivedCall) => { status: number; body?: string } | "hang";

/** A webhook receiver on loopback (port 0) that records every call and answers as told. */
export interface Receiver {
  url: string;
  calls: ReceivedCall[];
  /** Resolves once `count` calls have arrived (no sleeps: it waits on the calls themselves), or rejects after `ms`. */
  waitFor(count: number, ms?: number): Promise<ReceivedCall[]>;
  stop(): void;
}

export function startReceiver(answer: Answer = () => ({ status: 200, body: "ok" })): Receiver {
  const calls: ReceivedCall[] = [];
  const waiters: (() => void)[] = [];
  const hanging: (() => void)[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const call: ReceivedCall = {
        method: request.method,
        path: new URL(request.url).pathname,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
      };
      calls.push(call);
      for (const wake of waiters.splice(0)) wake();
      const reply = answer(calls.length - 1, call);
      if (reply === "hang") {
        await new Promise<void>((resolve) => hanging.push(resolve));
        return new Response("late", { status: 200 });
      }
      return new Response(reply.body ?? "", { status: reply.status });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    calls,
    async waitFor(count, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (calls.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`the receiver got ${calls.length} of ${count} calls within ${ms} ms`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return calls.slice(0, count);
    },
    stop() {
      for (const release of hanging.splice(0)) release();
      server.stop(true);
    },
  };
}
