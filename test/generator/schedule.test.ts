import { describe, expect, it } from 'vitest';
import { OpenSchedule } from '../../src/generator/schedule.js';

const EPOCH = 1_724_300_000_000.25;

describe('OpenSchedule', () => {
  it('event k is due at start + k / rate, whatever happened before', () => {
    const s = new OpenSchedule(1000, 50);
    expect(s.timeOf(0)).toBe(1000);
    expect(s.timeOf(1)).toBe(1020);
    expect(s.timeOf(50)).toBe(2000);
    expect(s.timeOf(12_345)).toBe(1000 + 12_345 * 20);
  });

  it('does not accumulate drift over a long run', () => {
    const s = new OpenSchedule(EPOCH, 3);
    // 300,000 events at 3/s end exactly 100,000 s later.
    expect(s.timeOf(300_000) - EPOCH).toBeCloseTo(100_000_000, 3);
  });

  it('dueBy counts the events due by t, event 0 at start', () => {
    const s = new OpenSchedule(1000, 50);
    expect(s.dueBy(999.999)).toBe(0);
    expect(s.dueBy(1000)).toBe(1);
    expect(s.dueBy(1019.999)).toBe(1);
    expect(s.dueBy(1020)).toBe(2);
    expect(s.dueBy(2000)).toBe(51);
  });

  it.each([1, 3, 7, 50, 333, 1000, 0.3, 12_345])(
    'dueBy agrees with timeOf at every due time (rate %s/s, epoch start)',
    (rate) => {
      const s = new OpenSchedule(EPOCH, rate);
      for (let k = 0; k < 2000; k++) {
        const t = s.timeOf(k);
        expect(s.dueBy(t), `k=${k}`).toBe(k + 1);
      }
    },
  );

  it('a zero rate has nothing due, ever', () => {
    const s = new OpenSchedule(1000, 0);
    expect(s.dueBy(1000)).toBe(0);
    expect(s.dueBy(1e15)).toBe(0);
  });
});
