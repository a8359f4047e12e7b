/**
 * Supabase's RateCounter (docs/PROTOCOL.md §8.1): events are added to the current bucket; every
 * tick closes the bucket into a window of at most `bucketCount` buckets and evaluates the
 * limit once. The tested value is `avg = sum(buckets) / buckets / tickSeconds`, so while
 * the window is still filling the average covers only the ticks seen. It trips when
 * `avg ≥ limit` and stays tripped until a later tick sees `avg < limit`: a trip lasts at
 * least one tick and typically until the whole window has cooled.
 *
 * The authorization-error counter of docs/PROTOCOL.md §6.4, which tests the window's sum instead,
 * is server/db/rate-counter.ts's ErrorWindow.
 *
 * Ticks are driven from outside (`tick()`), so one timer serves every counter of a tenant
 * and, with `--workers`, the primary can tick with counts summed over all workers.
 */
export interface RateCounterOptions {
  tickMs: number;
  bucketCount: number;
  /** null: counted (for metrics) but never tripped. */
  limit: number | null;
}

export class RateCounter {
  /** Events since the last tick. */
  pending = 0;
  /** Whether the limit is currently tripped. */
  tripped = false;
  /** The last evaluated value: the window's average events/s. */
  value = 0;
  /** Events in the bucket closed by the last tick (metrics). */
  lastTickCount = 0;
  total = 0;
  private readonly buckets: number[] = [];
  private sum = 0;

  constructor(private readonly opts: RateCounterOptions) {}

  get limit(): number | null {
    return this.opts.limit;
  }

  add(n = 1): void {
    this.pending += n;
    this.total += n;
  }

  /** Closes the current bucket; `external` replaces the local count (cluster primary). */
  tick(external?: number): void {
    const count = external ?? this.pending;
    this.pending = 0;
    this.lastTickCount = count;
    this.buckets.push(count);
    this.sum += count;
    if (this.buckets.length > this.opts.bucketCount) this.sum -= this.buckets.shift()!;
    this.value = this.sum / this.buckets.length / (this.opts.tickMs / 1000);
    const lim = this.opts.limit;
    this.tripped = lim !== null && this.value >= lim;
  }

  /** State pushed from the cluster primary to workers. */
  setState(tripped: boolean, value: number): void {
    this.tripped = tripped;
    this.value = value;
  }
}
