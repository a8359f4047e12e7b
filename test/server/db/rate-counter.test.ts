import { describe, expect, it } from 'vitest';
import { ErrorWindow } from '../../../src/server/db/rate-counter.js';

describe('ErrorWindow (docs/PROTOCOL.md §6.4: 1 s tick × 30 buckets, sum, limit = pool)', () => {
  it('has Supabase’s default shape', () => {
    const w = new ErrorWindow({ windowMs: 30_000, limit: 1 });
    expect(w.tickMs).toBe(1_000);
    expect(w.bucketCount).toBe(30);
  });

  it('trips at the tick that sees sum ≥ limit and clears once the window has cooled', () => {
    const w = new ErrorWindow({ windowMs: 3_000, limit: 2 });
    w.add(1);
    w.tick();
    expect(w.tripped).toBe(false);
    w.add(1);
    expect(w.tripped).toBe(false); // evaluated once per tick only
    w.tick();
    expect(w.tripped).toBe(true);
    expect(w.count).toBe(2);
    for (let i = 0; i < 28; i++) w.tick();
    expect(w.tripped).toBe(true); // the second error is still inside the 30 buckets
    w.tick();
    expect(w.tripped).toBe(false); // first error dropped out: 1 < 2
    w.tick();
    expect(w.count).toBe(0);
    expect(w.total).toBe(2);
  });
});
