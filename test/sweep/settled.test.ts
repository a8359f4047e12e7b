/**
 * A search step short of min_samples is run again longer only when the samples it lacks could
 * change its verdict: counted in its latency histogram against the SLO, stable with ⌈0.95 N⌉
 * samples already at or under it, or degraded with more than N − ⌈0.95 N⌉ already over it, is
 * settled; a bucket that straddles the SLO counts on neither side.
 */
import { describe, expect, it } from 'vitest';
import { HISTOGRAM_LE_MS, type StepResult } from '../../src/result/result.js';
import { countsAround, settledVerdict } from '../../src/sweep/settled.js';
import { makeStep } from '../fixtures/index.js';

/** A step of `fast` samples in (5, 10] ms and `slow` in (500, 1000] ms. */
function stepOf(verdict: StepResult['verdict'], fast: number, slow: number): StepResult {
  const counts = new Array<number>(HISTOGRAM_LE_MS.length + 1).fill(0);
  counts[HISTOGRAM_LE_MS.indexOf(10)] = fast;
  counts[HISTOGRAM_LE_MS.indexOf(1000)] = slow;
  const step = makeStep(1, { verdict });
  step.latency_ms = { ...step.latency_ms, count: fast + slow };
  step.latency_histogram_ms = { le_ms: [...HISTOGRAM_LE_MS], counts };
  return step;
}

describe('countsAround', () => {
  it('counts buckets wholly at or under, and wholly over, a bound; a straddling one on neither side', () => {
    const h = { le_ms: [10, 100, 1000], counts: [5, 7, 11, 13] };
    expect(countsAround(h, 100)).toEqual({ under: 12, over: 24 });
    expect(countsAround(h, 200)).toEqual({ under: 12, over: 13 });
  });
});

describe('settledVerdict', () => {
  const slo = { p95_ms: 200 };

  it('stable with 960 of 1,000 samples, all fast: settled (950 needed at or under the SLO)', () => {
    expect(settledVerdict(stepOf('stable', 960, 0), slo, 1000)).toBe(
      'stable whatever the 40 missing samples: 960 of 960 at or under the SLO 200 ms, at least 950 of 1000 needed',
    );
  });

  it('stable with 940 (or 945 and 10 slow) of 1,000 samples: open (the missing ones could put the p95 over)', () => {
    expect(settledVerdict(stepOf('stable', 940, 0), slo, 1000)).toBeNull();
    expect(settledVerdict(stepOf('stable', 945, 10), slo, 1000)).toBeNull();
  });

  it('degraded with 51 of 400 samples over the SLO: settled (1,000 allow 50); with 50: open', () => {
    expect(settledVerdict(stepOf('degraded', 349, 51), slo, 1000)).toBe(
      'degraded whatever the 600 missing samples: 51 of 400 over the p95 SLO 200 ms, more than the 50 of 1000 p95 allows',
    );
    expect(settledVerdict(stepOf('degraded', 350, 50), slo, 1000)).toBeNull();
  });

  it('a p99 SLO must be settled too for stable, and settles degraded on its own', () => {
    const withP99 = { p95_ms: 200, p99_ms: 500 };
    // 960 fast and 20 slow of 1,000: p95 settled under 200, but 990 needed under 500.
    expect(settledVerdict(stepOf('stable', 960, 20), withP99, 1000)).toBeNull();
    expect(settledVerdict(stepOf('stable', 995, 0), withP99, 1000)).not.toBeNull();
    expect(settledVerdict(stepOf('degraded', 300, 11), withP99, 1000)).toMatch(
      /11 of 311 over the p99 SLO 500 ms, more than the 10 of 1000 p99 allows$/,
    );
  });

  it('not short, broken, without a histogram or judged by kind: never settled here', () => {
    expect(settledVerdict(stepOf('stable', 1000, 0), slo, 1000)).toBeNull();
    expect(settledVerdict(stepOf('broken', 999, 0), slo, 1000)).toBeNull();
    const bare = stepOf('stable', 990, 0);
    delete bare.latency_histogram_ms;
    expect(settledVerdict(bare, slo, 1000)).toBeNull();
    const mixed = stepOf('stable', 990, 0);
    mixed.extra = { kinds: { broadcast: {}, presence: {} } };
    expect(settledVerdict(mixed, slo, 1000)).toBeNull();
  });
});
