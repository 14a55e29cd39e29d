/** A token bucket per key (client address and form): `perMinute` refill, `burst` at most. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly refillPerMs: number;

  constructor(
    private readonly perMinute: number,
    private readonly burst: number,
    private readonly maxKeys = 100_000,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** Takes a token for `key`: 0 when allowed, else the whole seconds to wait before the next one. */
  take(key: string, now = Date.now()): number {
    if (this.perMinute === 0) return 0;
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + (now - bucket.at) * this.refillPerMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      this.buckets.delete(key); // re-insert so that the map stays in order of last use
      this.buckets.set(key, bucket);
      if (this.buckets.size > this.maxKeys) this.evict(now);
      return 0;
    }
    this.buckets.set(key, bucket);
    return Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000));
  }

  /** Gives back the token `take` took for `key` (an attempt that turned out not to count, such as a right password). */
  giveBack(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  /** Drops buckets that have refilled (they hold nothing a new bucket would not), oldest use first. */
  private evict(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (this.buckets.size <= this.maxKeys / 2) break;
      const full = bucket.tokens + (now - bucket.at) * this.refillPerMs >= this.burst;
      if (full || this.buckets.size > this.maxKeys) this.buckets.delete(key);
    }
  }
}
