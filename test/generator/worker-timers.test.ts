import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  heartbeatSlotsDue,
  MAINTENANCE_EVERY_MS,
  startWorkerTimers,
} from '../../src/generator/worker-timers.js';

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

function started(heartbeatIntervalMs: number) {
  const seen = { seconds: 0, heartbeats: [] as Array<[number, number]>, maintained: 0 };
  let stopped = false;
  const timers = startWorkerTimers(heartbeatIntervalMs, {
    stopped: () => stopped,
    reportSecond: () => seen.seconds++,
    heartbeat: (slot, slots) => {
      seen.heartbeats.push([slot, slots]);
    },
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

  it('says how late each per-second tick came', () => {
    vi.useFakeTimers({ now: 10_500 });
    const late: number[] = [];
    const timers = startWorkerTimers(30_000, {
      stopped: () => false,
      reportSecond: (lateMs) => late.push(lateMs),
      heartbeat: () => undefined,
      maintain: () => undefined,
    });
    vi.advanceTimersByTime(600);
    // The tick due at 12_005 runs when the clock reads 2.5 s later (a loop held that long).
    const now = Date.now.bind(Date);
    vi.spyOn(Date, 'now').mockImplementation(() => now() + 2_500);
    vi.advanceTimersByTime(1_000);
    expect(late.slice(0, 2)).toEqual([0, 2_500]);
    for (const t of timers) clearTimeout(t);
  });

  it('spreads heartbeats over the interval, one slot a second', () => {
    vi.useFakeTimers({ now: 0 });
    const { seen, timers } = started(3_000);
    vi.advanceTimersByTime(4_001);
    expect(seen.heartbeats).toEqual([
      [1, 3],
      [2, 3],
      [0, 3],
      [1, 3],
    ]);
    for (const t of timers) clearTimeout(t);
  });

  it('keeps each connection on its heartbeat interval when the event loop lags: a late tick sends every slot that came due', () => {
    vi.useFakeTimers({ now: 0 });
    const at: number[][] = Array.from({ length: 25 }, () => []);
    const timers = startWorkerTimers(25_000, {
      stopped: () => false,
      reportSecond: () => undefined,
      heartbeat: (slot) => {
        at[slot].push(Date.now());
      },
      maintain: () => undefined,
    });
    // A lagging loop: every 1 s tick runs 1.4 s late (2.4 s apart), for two minutes.
    for (let t = 0; t < 50; t++) {
      vi.setSystemTime(Date.now() + 1_400);
      vi.advanceTimersByTime(1_000);
    }
    const wallS = Date.now() / 1000;
    expect(wallS).toBe(120);
    for (const times of at) {
      // One heartbeat per connection per 25 s of wall clock (one slot a tick gave one per 60 s,
      // past the server's 60 s idle timeout): 4 or 5 in 120 s, never more than 27.4 s apart.
      expect(times.length).toBeGreaterThanOrEqual(4);
      expect(times.length).toBeLessThanOrEqual(5);
      for (let i = 1; i < times.length; i++)
        expect(times[i] - times[i - 1]).toBeLessThanOrEqual(25_000 + 2_400);
    }
    for (const t of timers) clearTimeout(t);
  });

  it("heartbeats in the tick itself; what awaits a reply only after the loop's next read of its sockets", async () => {
    // Real setImmediate: the deferred part must wait for the loop's next turn, not the tick.
    vi.useFakeTimers({ now: 0, toFake: ['setTimeout', 'setInterval', 'Date'] });
    const order: string[] = [];
    const timers = startWorkerTimers(2_000, {
      stopped: () => false,
      reportSecond: () => undefined,
      heartbeat: (slot) => {
        order.push(`tick ${slot}`);
        return slot === 1 ? () => order.push(`after read ${slot}`) : null;
      },
      maintain: () => undefined,
    });
    vi.advanceTimersByTime(1_000);
    expect(order).toEqual(['tick 1']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['tick 1', 'after read 1']);
    vi.advanceTimersByTime(1_000);
    await new Promise((resolve) => setImmediate(resolve));
    // Slot 0 had nothing awaiting a reply: nothing deferred.
    expect(order).toEqual(['tick 1', 'after read 1', 'tick 0']);
    for (const t of timers) clearTimeout(t);
  });

  it('counts the heartbeat slots due by the seconds elapsed, at least one, at most one round', () => {
    expect(heartbeatSlotsDue(1_000, 25)).toEqual({ count: 1, restart: false });
    expect(heartbeatSlotsDue(940, 25)).toEqual({ count: 1, restart: false });
    expect(heartbeatSlotsDue(2_400, 25)).toEqual({ count: 2, restart: false });
    expect(heartbeatSlotsDue(2_600, 25)).toEqual({ count: 3, restart: false });
    expect(heartbeatSlotsDue(-5_000, 25)).toEqual({ count: 1, restart: false });
    // A loop blocked longer than the interval: every connection once, not several times.
    expect(heartbeatSlotsDue(90_000, 25)).toEqual({ count: 25, restart: true });
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
