/**
 * How long a search step runs after one was lengthened for sweep.min_samples: as long as the
 * samples it is expected to get need (the fewest per unit of length any stable step gave, per
 * unit of value for drivers whose samples grow with it), never longer than the step before,
 * never shorter than load.steps.0; and a short step whose verdict is settled is not run again.
 */
import { describe, expect, it } from 'vitest';
import { sweepSchema } from '../../src/profile/schema/sweep.js';
import type { Sweep } from '../../src/profile/schema.js';
import type { SweepHistoryItem } from '../../src/sweep/history.js';
import { carriedScale, expectedSamples, lengthenedScale } from '../../src/sweep/length.js';
import { planNextSweepStep } from '../../src/sweep/plan.js';

const cfg = (o: Record<string, unknown>): Sweep => sweepSchema.parse(o);
const item = (
  o: Partial<SweepHistoryItem> & { value: number; step: number },
): SweepHistoryItem => ({ phase: 'grow', verdict: 'stable', samples: 5000, ...o });

describe('carriedScale', () => {
  const rate = cfg({ driver: 'send_rate', start: 25, max: 6400, min_samples: 200 });

  it('a send-rate search lengthened at 25/s (100 samples → 2.4×) runs 50/s 1.2× and 100/s at 1×', () => {
    const history = [
      item({ value: 25, step: 1, samples: 100 }),
      item({ value: 25, step: 2, phase: 'lengthen', scale: 2.4, samples: 240 }),
    ];
    expect(lengthenedScale(rate, history[0], 4)).toBe(2.4);
    expect(expectedSamples('send_rate', history, 50)).toBe(200);
    expect(carriedScale(rate, history, 50)).toBe(1.2);
    expect(carriedScale(rate, history, 100)).toBe(1);
    expect(planNextSweepStep(rate, history, 25, 4)).toEqual({
      value: 50,
      phase: 'grow',
      scale: 1.2,
    });
  });

  it('samples that do not grow with the driver keep the length the step before needed, never more', () => {
    const members = cfg({ driver: 'members', start: 8, max: 256, min_samples: 1000 });
    const history = [
      item({ value: 8, step: 1, samples: 600 }),
      item({ value: 8, step: 2, phase: 'lengthen', scale: 2, samples: 1200 }),
    ];
    // 600 per unit: 1,200 wanted (20 % margin) → 2×, as before.
    expect(carriedScale(members, history, 16)).toBe(2);
    // Never longer than the step before, even when a step gave fewer.
    history.push(item({ value: 16, step: 3, scale: 2, samples: 800 }));
    expect(carriedScale(members, history, 32)).toBe(2);
  });

  it('no lengthened step, min_samples 0, or no stable step with samples: the last scale stands', () => {
    expect(carriedScale(rate, [item({ value: 25, step: 1 })], 50)).toBe(1);
    expect(
      carriedScale(
        cfg({ driver: 'send_rate', start: 25, max: 6400, min_samples: 0 }),
        [item({ value: 25, step: 1, scale: 3 })],
        50,
      ),
    ).toBe(3);
    expect(
      carriedScale(
        rate,
        [item({ value: 25, step: 1, verdict: 'degraded', scale: 3, samples: 50 })],
        50,
      ),
    ).toBe(3);
  });

  it('a short step whose verdict is settled is not run again longer', () => {
    const short = item({ value: 25, step: 1, samples: 190, settled: true });
    expect(lengthenedScale(rate, short, 4)).toBeNull();
    expect(planNextSweepStep(rate, [short], 25, 4)).toEqual({ value: 50, phase: 'grow' });
  });
});
