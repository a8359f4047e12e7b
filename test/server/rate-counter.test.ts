import { describe, expect, it } from 'vitest';
import { RateCounter } from '../../src/server/rate-counter.js';

describe('RateCounter (§8.1)', () => {
  const make = (limit: number | null) => new RateCounter({ tickMs: 5000, bucketCount: 12, limit });

  it('averages over the ticks seen while the window fills', () => {
    const c = make(null);
    c.add(50);
    c.tick();
    expect(c.value).toBe(10); // 50 events in one 5 s bucket
    c.tick();
    expect(c.value).toBe(5); // 50 over two buckets
  });

  it('trips when avg >= limit and recovers only when a later tick sees avg < limit', () => {
    const c = make(10);
    c.add(49);
    c.tick();
    expect(c.tripped).toBe(false); // 9.8/s
    c.add(51);
    c.tick();
    expect(c.value).toBe(10);
    expect(c.tripped).toBe(true); // exactly at the limit trips
    // Adding is not refused; the state changes only at the next tick.
    c.add(0);
    expect(c.tripped).toBe(true);
    c.tick(); // 100 over 3 buckets = 6.67/s
    expect(c.tripped).toBe(false);
  });

  it('keeps a burst tripped until the 60 s window cools', () => {
    const c = make(10);
    c.add(60 * 10);
    c.tick();
    let ticks = 1;
    while (c.tripped && ticks < 20) {
      c.tick();
      ticks++;
    }
    // 600 events: avg = 600 / n / 5 < 10 once n > 12, i.e. after the bucket leaves the window.
    expect(ticks).toBe(13);
  });

  it('drops buckets older than the window', () => {
    const c = make(null);
    c.add(120);
    c.tick();
    for (let i = 0; i < 12; i++) c.tick();
    expect(c.value).toBe(0);
  });

  it('uses external counts on the cluster primary', () => {
    const c = make(1);
    c.add(1000);
    c.tick(5);
    expect(c.value).toBe(1);
    expect(c.tripped).toBe(true);
    expect(c.pending).toBe(0);
  });
});
