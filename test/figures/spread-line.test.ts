import { describe, expect, it } from 'vitest';
import type { SecondStats } from '../../src/generator/ipc.js';
import { createHistogram, encodeHistogram, recordMs } from '../../src/measure/histogram.js';
import {
  evenParts,
  MAX_SPREAD_S,
  secondsCovered,
  spreadLine,
} from '../../src/figures/spread-line.js';

function covering(extra: Partial<SecondStats>): SecondStats {
  const h = createHistogram();
  recordMs(h, 7);
  return {
    type: 'second',
    worker: 3,
    t: 12,
    from: 10,
    open: 40,
    joined: 38,
    joins: 7,
    sent: 100,
    acked: 98,
    acksPending: 2,
    received: 1000,
    receivedByKind: [998, 2, 0],
    bytes: 64_000,
    errors: 4,
    disconnects: 1,
    histogram: encodeHistogram(h),
    health: { cpuPct: 99, lagP99Ms: 2400, lagMaxMs: 2600, rssMb: 90 },
    errorReasons: { 'join timeout': 4 },
    ...extra,
  };
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

describe('a line that covers several seconds', () => {
  it('splits a count into whole numbers as even as they go, the remainder last', () => {
    expect(evenParts(10, 3)).toEqual([3, 3, 4]);
    expect(evenParts(2, 3)).toEqual([0, 1, 1]);
    expect(evenParts(0, 2)).toEqual([0, 0]);
    expect(evenParts(9, 3)).toEqual([3, 3, 3]);
  });

  it('becomes one line per second it covers, every count exact in total', () => {
    const s = covering({});
    expect(secondsCovered(s)).toBe(3);
    const pieces = spreadLine(s);
    expect(pieces.map((p) => p.t)).toEqual([10, 11, 12]);
    expect(pieces.every((p) => p.from === undefined && p.spread === 3)).toBe(true);
    for (const f of [
      'joins',
      'sent',
      'acked',
      'received',
      'bytes',
      'errors',
      'disconnects',
    ] as const)
      expect(sum(pieces.map((p) => p[f]))).toBe(s[f]);
    expect(pieces.map((p) => p.sent)).toEqual([33, 33, 34]);
    // A piece's deliveries are those of its kinds; each kind's total is exact too.
    for (const p of pieces) expect(sum(p.receivedByKind!)).toBe(p.received);
    expect(pieces.map((p) => p.receivedByKind)).toEqual([
      [332, 0, 0],
      [333, 1, 0],
      [333, 1, 0],
    ]);
    expect(sum(pieces.map((p) => p.errorReasons['join timeout'] ?? 0))).toBe(4);
    // Gauges and health hold for every second; the latency histogram stays with the last.
    expect(pieces.map((p) => [p.open, p.joined, p.health.lagP99Ms])).toEqual([
      [40, 38, 2400],
      [40, 38, 2400],
      [40, 38, 2400],
    ]);
    expect(pieces.map((p) => p.histogram !== '')).toEqual([false, false, true]);
  });

  it('of one second is left as it is', () => {
    const s = covering({ from: undefined });
    expect(spreadLine(s)).toEqual([s]);
    expect(spreadLine(covering({ from: 12 }))).toHaveLength(1);
  });

  it('over more seconds than a busy process is late by (a stopped process, a clock step) is left in t', () => {
    expect(spreadLine(covering({ from: 12 - MAX_SPREAD_S + 1 }))).toHaveLength(MAX_SPREAD_S);
    const stepped = covering({ from: 12 - 3 * 3600 });
    expect(spreadLine(stepped)).toEqual([stepped]);
  });
});
