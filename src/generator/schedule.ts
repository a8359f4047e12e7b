/**
 * Open-model schedules (wrk2's lesson): event k is due at start + k / rate, whatever happened
 * to event k-1. A late event is sent late and counted as late, never skipped, so latency
 * measured from the due time includes any delay the generator or server caused.
 */
/**
 * How late an event may be made and still count as offered on schedule: a send or a join made
 * later than this after its due time is the generator falling behind (the offered ratio).
 */
export const OFFERED_GRACE_MS = 1000;

export class OpenSchedule {
  private readonly intervalMs: number;
  constructor(
    readonly startMs: number,
    readonly ratePerS: number,
  ) {
    this.intervalMs = ratePerS > 0 ? 1000 / ratePerS : Infinity;
  }

  timeOf(k: number): number {
    return this.startMs + k * this.intervalMs;
  }

  /** How many events are due by `t` (events 0..n-1). */
  dueBy(t: number): number {
    if (t < this.startMs || !Number.isFinite(this.intervalMs)) return 0;
    // The float quotient can land just short of an event due exactly at t (epoch-ms starts,
    // rates like 3/s): settle the estimate against timeOf, which is what the senders use.
    let n = Math.floor((t - this.startMs) / this.intervalMs) + 1;
    while (this.timeOf(n) <= t) n++;
    while (n > 1 && this.timeOf(n - 1) > t) n--;
    return n;
  }
}
