import { describe, expect, it } from 'vitest';
import { heldThroughoutMs, HealthMonitor, LAG_RESOLUTION_MS } from '../../src/measure/health.js';

describe("a generator process's event-loop lag", () => {
  it('of an interval in which the delay monitor never fired is the whole interval', () => {
    expect(heldThroughoutMs(0, 3_000)).toBe(3_000 - LAG_RESOLUTION_MS);
    // The monitor fired: its histogram says how late; an interval too short to tell: nothing.
    expect(heldThroughoutMs(4, 3_000)).toBe(0);
    expect(heldThroughoutMs(0, 2 * LAG_RESOLUTION_MS)).toBe(0);
  });

  it('reads a loop held for the whole of its interval as lag, not 0', () => {
    const monitor = new HealthMonitor();
    try {
      monitor.sample();
      // Held from just after one sample to the next: the monitor's timer cannot fire between.
      const cell = new Int32Array(new SharedArrayBuffer(4));
      Atomics.wait(cell, 0, 0, 500);
      const s = monitor.sample();
      expect(s.lagP99Ms).toBeGreaterThanOrEqual(500 - LAG_RESOLUTION_MS);
      expect(s.lagMaxMs).toBeGreaterThanOrEqual(500 - LAG_RESOLUTION_MS);
    } finally {
      monitor.stop();
    }
  });

  it('is at least how late the tick that asks for it came', () => {
    const monitor = new HealthMonitor();
    try {
      const s = monitor.sample(2_500);
      expect([s.lagP99Ms >= 2_500, s.lagMaxMs >= 2_500]).toEqual([true, true]);
      expect(monitor.sample().lagMaxMs).toBeLessThan(2_500);
    } finally {
      monitor.stop();
    }
  });
});
