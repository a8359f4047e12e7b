/**
 * What one quota check saw, each with the time it happened: events the target counted
 * (accepted), refusals with their verbatim reason, the load offered (events sent toward the
 * quota) and the actions a driver could not make (skipped). A phase's evidence is a window of it.
 */
import { nowMs } from '../measure/clock.js';
import type { PhaseEvidence } from '../result/quotas.js';

export interface Rejection {
  atMs: number;
  reason: string;
}

export class Ledger {
  accepted: number[] = [];
  rejections: Rejection[] = [];
  /** [time, events the target counts for it] of every action sent. */
  offers: Array<[number, number]> = [];
  skips: number[] = [];
  reject(reason: string, atMs = nowMs()): void {
    this.rejections.push({ atMs, reason });
  }
  accept(atMs = nowMs(), n = 1): void {
    for (let i = 0; i < n; i++) this.accepted.push(atMs);
  }
  offer(events: number, atMs = nowMs()): void {
    this.offers.push([atMs, events]);
  }
  skip(atMs = nowMs()): void {
    this.skips.push(atMs);
  }
  /**
   * The evidence of [fromMs, toMs). `offered` for counts and sizes; without it, the rate of the
   * events offered in the window (events ÷ seconds), which is what a rate phase claims.
   */
  phase(
    fromMs: number,
    toMs: number,
    claim: { load: string; target: number; offered?: number | null },
  ): PhaseEvidence {
    const { load, target, offered } = claim;
    const inside = (t: number) => t >= fromMs && t < toMs;
    const rej = this.rejections.filter((r) => inside(r.atMs));
    const reasons: Record<string, number> = {};
    for (const r of rej) reasons[r.reason] = (reasons[r.reason] ?? 0) + 1;
    const durS = (toMs - fromMs) / 1000;
    const events = this.offers.filter(([t]) => inside(t)).reduce((a, [, n]) => a + n, 0);
    return {
      load,
      target,
      offered: offered !== undefined ? offered : durS > 0 ? events / durS : null,
      skipped: this.skips.filter(inside).length,
      accepted: this.accepted.filter(inside).length,
      rejections: rej.length,
      reasons,
    };
  }
}
