import { describe, expect, it } from 'vitest';
import { OFFERED_GRACE_MS } from '../../src/generator/schedule.js';
import {
  offeredByPart,
  offeredInWindow,
  offeredRatio,
  scheduledOfKind,
  sendOfferedRatio,
} from '../../src/figures/offered.js';

const send = (stream: number, actual: number[]) => ({
  stream,
  sched: Float64Array.from(actual),
  actual: Float64Array.from(actual),
});

describe('offered load', () => {
  it('counts the selected streams sends made by the end of the window plus the grace, failed ones included', () => {
    const sends = [
      send(1, [100, 900, 1000 + OFFERED_GRACE_MS, 1001 + OFFERED_GRACE_MS, NaN]),
      send(2, [100, 200]),
    ];
    expect(offeredInWindow(sends, (s) => s === 1, 1000)).toBe(4);
    expect(offeredInWindow(sends, () => true, 1000)).toBe(6);
    expect(offeredInWindow(sends, () => false, 1000)).toBe(0);
  });

  it('sends: offered over scheduled, null when none was scheduled', () => {
    expect(sendOfferedRatio(100, 95)).toBe(0.95);
    expect(sendOfferedRatio(0, 0)).toBeNull();
  });

  it('scheduled per kind: the plan schedules, the coordinator rows for changes', () => {
    const plan = {
      broadcasts: { ratePerS: 10, count: 100 },
      presence: { ratePerS: 2, count: 20 },
    } as never;
    expect([
      scheduledOfKind('broadcast', plan, 7),
      scheduledOfKind('presence', plan, 7),
      scheduledOfKind('changes', plan, 7),
    ]).toEqual([100, 20, 7]);
    expect(scheduledOfKind('presence', { broadcasts: null, presence: null }, 0)).toBe(0);
  });

  it('per part: each kind and the joins that scheduled anything, rounded', () => {
    expect(offeredByPart({ broadcast: 1, presence: 0.81234, changes: null, joins: 1 })).toEqual({
      broadcast: 1,
      presence: 0.812,
      joins: 1,
    });
  });

  it('the step ratio is the lowest part present', () => {
    expect(offeredRatio([0.95, 0.8])).toBe(0.8);
    expect(offeredRatio([null, 0.9])).toBe(0.9);
    expect(offeredRatio([null, null])).toBeNull();
  });
});
