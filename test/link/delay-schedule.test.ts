import { describe, expect, it } from 'vitest';
import { DelaySchedule } from '../../src/link/delay-schedule.js';

/** A fake uniform source returning the given values in turn. */
const seq = (...v: number[]) => {
  let i = 0;
  return () => v[i++ % v.length];
};

describe('DelaySchedule', () => {
  it('holds a chunk for the delay when there is no jitter', () => {
    const s = new DelaySchedule(50, 0);
    expect(s.releaseAt(1000)).toBe(1050);
    expect(s.releaseAt(1001)).toBe(1051);
  });

  it('draws jitter uniformly in delay ± jitter (0 → −jitter, 0.5 → 0, →1 → +jitter)', () => {
    const s = new DelaySchedule(50, 5, -Infinity, seq(0, 0.5, 0.999999));
    expect(s.releaseAt(0)).toBe(45);
    expect(s.releaseAt(100)).toBe(150);
    expect(s.releaseAt(200)).toBeCloseTo(255, 3);
  });

  it('never releases a chunk before the one ahead of it (jitter cannot reorder a stream)', () => {
    // The first chunk draws +5, the second (1 ms later) −5: it waits for the first.
    const s = new DelaySchedule(50, 5, -Infinity, seq(0.999999, 0));
    const first = s.releaseAt(0);
    const second = s.releaseAt(1);
    expect(first).toBeCloseTo(55, 3);
    expect(second).toBe(first);
    // Far enough behind, a chunk is back on its own schedule (it draws +5 again).
    expect(s.releaseAt(100)).toBeCloseTo(155, 3);
  });

  it('holds chunks that arrive before notBefore as if they arrived then (the handshake)', () => {
    // Accepted at 1000 with 50 ms each way: the client could first send at 1100 on a real link.
    const s = new DelaySchedule(50, 0, 1100);
    expect(s.releaseAt(1000)).toBe(1150);
    expect(s.releaseAt(1200)).toBe(1250);
  });
});
