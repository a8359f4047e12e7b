/**
 * The error counters that protect the tenant database (docs/PROTOCOL.md §6.4): the
 * `{:channel, :authorization_errors, tenant}` counter and its twin for subscription
 * inserts. Shape of Supabase's RateCounter: errors are added to the open bucket; every tick
 * closes it into a window of `bucketCount` buckets and evaluates the limit once, measuring
 * the window's **sum**. It trips when `sum ≥ limit` and stays tripped until a later tick
 * sees `sum < limit`, so a trip lasts at least one tick and typically the whole window.
 *
 * Supabase's values: 1 s tick × 30 buckets, limit = the pool size. Tests shrink the window;
 * the bucket count stays 30 so the shape is the same.
 */

export interface ErrorWindowOptions {
  windowMs: number;
  bucketCount?: number;
  limit: number;
}

export class ErrorWindow {
  private readonly buckets: number[] = [];
  private open = 0;
  private windowSum = 0;
  private isTripped = false;
  private totalCount = 0;
  private timer: NodeJS.Timeout | null = null;
  readonly tickMs: number;
  readonly bucketCount: number;

  constructor(private readonly opts: ErrorWindowOptions) {
    this.bucketCount = Math.max(1, Math.round(opts.bucketCount ?? 30));
    this.tickMs = Math.max(1, opts.windowMs / this.bucketCount);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.tick(), this.tickMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  add(n = 1): void {
    this.open += n;
    this.totalCount += n;
  }

  /** Closes the open bucket and evaluates the limit (public so tests can drive it). */
  tick(): void {
    this.buckets.push(this.open);
    this.windowSum += this.open;
    this.open = 0;
    if (this.buckets.length > this.bucketCount) this.windowSum -= this.buckets.shift()!;
    this.isTripped = this.windowSum >= this.opts.limit;
  }

  get tripped(): boolean {
    return this.isTripped;
  }

  /** Errors in the window plus the open bucket: what stats() reports. */
  get count(): number {
    return this.windowSum + this.open;
  }

  get total(): number {
    return this.totalCount;
  }
}
