import { afterEach, describe, expect, it, vi } from 'vitest';
import { MAINTENANCE_EVERY_MS, startWorkerTimers } from '../../src/generator/worker-timers.js';

afterEach(() => {
  vi.useRealTimers();
});

function started(heartbeatIntervalMs: number) {
  const seen = { seconds: 0, heartbeats: [] as Array<[number, number]>, maintained: 0 };
  let stopped = false;
  const timers = startWorkerTimers(heartbeatIntervalMs, {
    stopped: () => stopped,
    reportSecond: () => seen.seconds++,
    heartbeat: (slot, slots) => seen.heartbeats.push([slot, slots]),
    maintain: () => seen.maintained++,
  });
  return { seen, timers, stop: () => (stopped = true) };
}

describe("a generator process's clocks", () => {
  it('reports each wall-clock second, once, just after it ends', () => {
    vi.useFakeTimers({ now: 10_500 });
    const { seen, timers } = started(30_000);
    vi.advanceTimersByTime(499);
    expect(seen.seconds).toBe(0);
    // The line of second 10 goes a few ms after 11_000, then once a second.
    vi.advanceTimersByTime(10);
    expect(seen.seconds).toBe(1);
    vi.advanceTimersByTime(3_000);
    expect(seen.seconds).toBe(4);
    for (const t of timers) clearTimeout(t);
  });

  it('spreads heartbeats over the interval, one slot a second', () => {
    vi.useFakeTimers({ now: 0 });
    const { seen, timers } = started(3_000);
    vi.advanceTimersByTime(4_000);
    expect(seen.heartbeats).toEqual([
      [1, 3],
      [2, 3],
      [0, 3],
      [1, 3],
    ]);
    for (const t of timers) clearTimeout(t);
  });

  it('maintains timeouts every 250 ms, and nothing runs once every timer is cleared', () => {
    vi.useFakeTimers({ now: 0 });
    const { seen, timers, stop } = started(1_000);
    vi.advanceTimersByTime(1_000);
    expect(seen.maintained).toBe(1_000 / MAINTENANCE_EVERY_MS);
    stop();
    vi.advanceTimersByTime(1_100);
    // Stopped before the first second ended: its timer fired and reported nothing.
    expect(seen.seconds).toBe(0);
    for (const t of timers) clearTimeout(t);
    const maintained = seen.maintained;
    const heartbeats = seen.heartbeats.length;
    vi.advanceTimersByTime(5_000);
    expect(seen.seconds).toBe(0);
    expect(seen.maintained).toBe(maintained);
    expect(seen.heartbeats.length).toBe(heartbeats);
  });
});
