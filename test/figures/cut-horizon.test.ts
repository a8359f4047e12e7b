import { describe, expect, it } from 'vitest';
import { dueHorizon, dueOfSchedule, withinHorizon } from '../../src/figures/cut-horizon.js';

const record = (stream: number, sched: number[]) => ({
  stream,
  sched: Float64Array.from(sched),
  actual: Float64Array.from(sched, (t) => t + 1),
});
const receipts = (stream: number, n: number) => ({
  stream,
  count: new Uint32Array(n).fill(1),
  first: new Float64Array(n).fill(5),
  last: new Float64Array(n).fill(5),
});

describe('the part of a cut-short step that ran', () => {
  it('the horizon is a second before the cut; none for a step that ran whole', () => {
    expect(dueHorizon(10_000)).toBe(9_000);
    expect(dueHorizon(null)).toBeNull();
  });

  it('counts the events of a schedule due by the horizon, at most all of them', () => {
    // 10/s from 1,000: due at 1,000, 1,100, … — six by 1,500.
    expect(dueOfSchedule(1_000, 10, 20, 1_500)).toBe(6);
    expect(dueOfSchedule(1_000, 10, 20, 999)).toBe(0);
    expect(dueOfSchedule(1_000, 10, 20, 60_000)).toBe(20);
  });

  it('keeps the sends due by the horizon and the receipts of those, per stream', () => {
    // Stream 1 split over two processes (relay): seqs 0, 2 in one, 1, 3 in the other (gaps 0).
    const a = record(1, [100, 0, 300]);
    const b = record(1, [0, 200, 0, 400]);
    const other = record(2, [100, 200]);
    type Receipts = { receipts: { streams: ReturnType<typeof receipts>[] } };
    const collected: Receipts[] = [
      { receipts: { streams: [receipts(1, 4), receipts(2, 2)] } },
      { receipts: { streams: [receipts(1, 4)] } },
    ];
    const cut = withinHorizon([a, b, other], collected as never[], 250);
    expect(cut.sends.map((s) => [...s.sched])).toEqual([
      [100, 0],
      [0, 200],
      [100, 200],
    ]);
    const streams = (cut.collected as Receipts[]).map((c) =>
      c.receipts.streams.map((r) => r.count.length),
    );
    expect(streams).toEqual([[2, 2], [2]]);
  });
});
