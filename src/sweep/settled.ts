/**
 * Whether a search step short of sweep.min_samples needs its longer run: only when its verdict
 * rests on the percentile that lacks samples. A step's first-receipt p95 over min_samples (N)
 * samples is over the SLO exactly when fewer than ⌈0.95 N⌉ of them are at or under it, so from
 * the n < N samples it has, counted in its latency histogram against the SLO, the missing N − n
 * can settle the verdict one way only:
 *
 * - stable is settled when the samples certainly at or under the SLO already number ⌈0.95 N⌉:
 *   even were every missing sample over it, the p95 would stay under;
 * - degraded is settled when the samples certainly over the SLO number more than N − ⌈0.95 N⌉:
 *   even were every missing sample fast, the p95 would stay over.
 *
 * The same holds for p99 against slo.p99_ms (⌈0.99 N⌉) when the profile sets it. "Certainly":
 * the histogram's buckets wholly at or under (wholly over) the SLO, so a bucket that straddles
 * it counts on neither side. A step whose latency was judged by kind (several message kinds),
 * a join-rate step (judged on join p95, kept without a histogram) or a step without a
 * histogram is never settled this way: it is lengthened as before. Pure.
 */
import type { CompactHistogram, StepResult } from '../result/result.js';

interface SloBounds {
  p95_ms: number;
  p99_ms?: number;
}

/** Samples wholly at or under `ms`, and wholly over it, of a compact histogram. */
export function countsAround(h: CompactHistogram, ms: number): { under: number; over: number } {
  let under = 0;
  let over = 0;
  for (let i = 0; i < h.counts.length; i++) {
    const lower = i === 0 ? -Infinity : h.le_ms[i - 1];
    const upper = i < h.le_ms.length ? h.le_ms[i] : Infinity;
    if (upper <= ms) under += h.counts[i];
    else if (lower >= ms) over += h.counts[i];
  }
  return { under, over };
}

/** One percentile bound: settled stable, settled over, or open. */
function bound(h: CompactHistogram, ms: number, q: number, min: number): 'under' | 'over' | 'open' {
  const need = Math.ceil(q * min);
  const { under, over } = countsAround(h, ms);
  if (under >= need) return 'under';
  if (over > min - need) return 'over';
  return 'open';
}

/**
 * Why the samples a step lacks of `min` cannot change its verdict (words for its record), or
 * null when they can and the step is run again longer.
 */
export function settledVerdict(step: StepResult, slo: SloBounds, min: number): string | null {
  const h = step.latency_histogram_ms;
  const n = step.latency_ms?.count ?? 0;
  if (!h || n <= 0 || n >= min) return null;
  if (step.extra?.kinds && Object.keys(step.extra.kinds as object).length > 1) return null;
  const checks: Array<{ name: string; ms: number; q: number }> = [
    { name: 'p95', ms: slo.p95_ms, q: 0.95 },
    ...(slo.p99_ms !== undefined ? [{ name: 'p99', ms: slo.p99_ms, q: 0.99 }] : []),
  ];
  const outcome = checks.map((c) => ({ ...c, at: bound(h, c.ms, c.q, min) }));
  if (step.verdict === 'stable' && outcome.every((o) => o.at === 'under')) {
    const { under } = countsAround(h, slo.p95_ms);
    return `stable whatever the ${min - n} missing samples: ${under} of ${n} at or under the SLO ${slo.p95_ms} ms, at least ${Math.ceil(0.95 * min)} of ${min} needed`;
  }
  const over = outcome.find((o) => o.at === 'over');
  if (step.verdict === 'degraded' && over) {
    const k = countsAround(h, over.ms).over;
    return `degraded whatever the ${min - n} missing samples: ${k} of ${n} over the ${over.name} SLO ${over.ms} ms, more than the ${min - Math.ceil(over.q * min)} of ${min} ${over.name} allows`;
  }
  return null;
}
